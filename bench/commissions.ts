// The commission workload beside the product's mix (both with webhook endpoints), drained by one
// worker on PostgreSQL, one run each, in the same run:
//   npx tsx bench/commissions.ts     COMM_EVENTS (20000), COMM_PRIOR (10000), COMM_ENDPOINT (1; 0: no webhook endpoint), BENCH_PG_URL
// bench:processing runs the same two drains among its other parts.
import { commissionDrain, mixDrain } from "./mix";

const EVENTS = Number(process.env.COMM_EVENTS ?? 20_000);
const PRIOR = Number(process.env.COMM_PRIOR ?? 10_000);

async function main() {
  const commission = await commissionDrain(EVENTS, PRIOR, process.env.COMM_ENDPOINT !== "0");
  console.log(JSON.stringify(commission));
  const mix = await mixDrain(EVENTS, PRIOR, 2);
  console.log(JSON.stringify(mix));
  console.log(
    `commission drain ${commission.rate.toFixed(0)} events/s (${commission.seconds.toFixed(1)} s, ${commission.rewards} rewards, exact: ${commission.exact}) · mix with two endpoints ${mix.rate.toFixed(0)} events/s · ratio ${(commission.rate / mix.rate).toFixed(2)}`,
  );
  if (!commission.exact) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
