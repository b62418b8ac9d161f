export { benchBaseline as POST } from "@/server/sdk/bench-baseline";
