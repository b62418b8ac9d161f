export { GET, POST, PUT, PATCH, DELETE, OPTIONS } from "@/server/sdk/routes/track";
