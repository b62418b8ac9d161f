// Renders an email's content (content.ts) with react-email to HTML and plain text. Text is
// escaped by React: a name or a reason can never become markup.
import { Body, Button, Container, Head, Heading, Hr, Html, Link, Preview, Section, Text } from "@react-email/components";
import { render } from "@react-email/render";
import type { EmailContent } from "./content";

interface Props {
  content: EmailContent;
  /** Referrer emails: the one-click unsubscribe link of this kind. */
  unsubscribeUrl: string | null;
  footer: string;
}

function EmailBody({ content, unsubscribeUrl, footer }: Props) {
  return (
    <Html lang="en">
      <Head />
      <Preview>{content.heading}</Preview>
      <Body style={{ backgroundColor: "#f6f7f9", fontFamily: "system-ui, -apple-system, Segoe UI, sans-serif", color: "#111827" }}>
        <Container style={{ backgroundColor: "#ffffff", padding: "24px", maxWidth: "560px", borderRadius: "8px" }}>
          <Heading as="h1" style={{ fontSize: "20px" }}>
            {content.heading}
          </Heading>
          {content.paragraphs.map((p, i) => (
            <Text key={i}>{p}</Text>
          ))}
          {content.items?.length ? (
            <Section>
              {content.items.map((item, i) => (
                <Text key={i} style={{ margin: "4px 0" }}>
                  • {item}
                </Text>
              ))}
            </Section>
          ) : null}
          {content.action ? (
            <Section style={{ margin: "16px 0" }}>
              <Button href={content.action.url} style={{ backgroundColor: "#1d4ed8", color: "#ffffff", padding: "10px 16px", borderRadius: "6px" }}>
                {content.action.label}
              </Button>
              <Text style={{ fontSize: "12px", color: "#4b5563" }}>
                Or open <Link href={content.action.url}>{content.action.url}</Link>
              </Text>
            </Section>
          ) : null}
          <Hr />
          <Text style={{ fontSize: "12px", color: "#4b5563" }}>{footer}</Text>
          {unsubscribeUrl ? (
            <Text style={{ fontSize: "12px", color: "#4b5563" }}>
              <Link href={unsubscribeUrl}>Unsubscribe from these emails</Link>
            </Text>
          ) : null}
        </Container>
      </Body>
    </Html>
  );
}

export async function renderEmail(p: Props): Promise<{ html: string; text: string }> {
  const el = <EmailBody {...p} />;
  const [html, text] = await Promise.all([render(el), render(el, { plainText: true })]);
  return { html, text };
}
