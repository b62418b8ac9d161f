export { GET, POST, PUT, PATCH, DELETE, OPTIONS } from "@/server/sdk/routes/rewards-reverse";
