import { AuthForm } from "@/components/auth-form";

export const metadata = { title: "Sign in · Referral Tracking" };
export default function SignInPage() {
  return <AuthForm mode="sign-in" />;
}
