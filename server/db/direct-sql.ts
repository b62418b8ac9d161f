// The direct channel: bulk statements of a transaction, without Prisma's per-query work.
//
// Prisma turns every statement, raw ones included, into JSON for its query compiler and back:
// for a statement carrying thousands of array elements (a worker batch's inserts) that costs
// several times the database's own work. directSql(tx) finds the pg connection that this Prisma
// transaction holds (one handshake statement through the transaction, which our connection
// class recognises) and sends statements to it directly: same connection, same transaction,
// in order. Only within the transaction callback (after it the connection belongs to someone
// else), and only on PostgreSQL; on PGlite it answers null and callers use the transaction.
import type { Prisma } from "./generated";
import { env } from "../shared/env";

type Tx = Prisma.TransactionClient;

const DIRECT_HANDSHAKE = "SELECT $1::text AS rts_direct_channel";
interface DirectClient {
  query: (config: { text: string; values: unknown[]; types?: unknown }) => Promise<{ rowCount: number | null; rows: unknown[] }>;
}
const directChannels = new Map<string, DirectClient>();
/** pg's type parsers, with timestamp(3) read as UTC (set when PostgreSQL is opened). */
let utcTypes: unknown;
export const setDirectTypes = (types: unknown) => void (utcTypes = types);

/** Called by the pool's connections for every statement: the handshake names the transaction's token. */
export function noteDirectHandshake(client: DirectClient, args: unknown[]) {
  const [config, values] = args as [{ text?: unknown } | string, unknown[] | undefined];
  if (typeof config === "object" && config?.text === DIRECT_HANDSHAKE) {
    const token = (values ?? (config as { values?: unknown[] }).values)?.[0];
    if (typeof token === "string") directChannels.set(token, client);
  }
}

export interface DirectSql {
  /** Runs one statement in the transaction; answers the number of rows it affected. */
  execute(sql: string, ...values: unknown[]): Promise<number>;
  /** Runs one statement in the transaction; answers its rows as rawRows reads them. */
  query<T>(sql: string, ...values: unknown[]): Promise<T[]>;
}

const channelOf = new WeakMap<object, DirectSql>();
export const directOff = () => env.directSqlOff;

/** The transaction's channel (PostgreSQL only: the caller checks), or null when its connection is not one of the pool's. */
export async function openDirectChannel(tx: Tx): Promise<DirectSql | null> {
  const known = channelOf.get(tx);
  if (known) return known;
  const token = `${process.pid}:${Math.random().toString(36).slice(2)}:${Date.now()}`;
  await tx.$queryRawUnsafe(DIRECT_HANDSHAKE, token);
  const client = directChannels.get(token);
  directChannels.delete(token);
  if (!client) return null;
  // Statements may be issued before the previous one answered (the set-based path sends a chunk
  // of writes while it decides the next): they queue here and go to the connection one at a
  // time, in order (pg's own queue for that is deprecated).
  let tail: Promise<unknown> = Promise.resolve();
  const inOrder = <R>(send: () => Promise<R>): Promise<R> => {
    const p = tail.then(send, send);
    tail = p.catch(() => undefined);
    return p;
  };
  const channel: DirectSql = {
    execute: (sql, ...values) => inOrder(async () => (await client.query({ text: sql, values })).rowCount ?? 0),
    query: <T>(sql: string, ...values: unknown[]) => inOrder(async () => (await client.query({ text: sql, values, types: utcTypes })).rows as T[]),
  };
  channelOf.set(tx, channel);
  return channel;
}
