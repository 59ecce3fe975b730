// Reading the e-mail the server sent: e2e/run.sh starts `proctor mailbox` as the schools' SMTP
// server and passes its HTTP base as MAILBOX_URL; its /mail/messages.json lists what it
// received, newest first (mail/mailbox).

const mailboxUrl = process.env.MAILBOX_URL;

// messages returns every message the mailbox holds, newest first.
export async function messages() {
  if (!mailboxUrl) {
    throw new Error('MAILBOX_URL is not set: run the suite through e2e/run.sh (make e2e)');
  }
  const res = await fetch(new URL('/mail/messages.json', mailboxUrl), { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) {
    throw new Error(`mailbox: GET /mail/messages.json: ${res.status}`);
  }
  const body = await res.json();
  return body.messages ?? [];
}

// waitForMessage polls the mailbox until a message to `to` whose subject matches `subject`
// (a RegExp or a substring) arrives, newer than `after` (a message seq: 0 for any), and returns
// the newest such message. The server's mail worker sends from its outbox in the background
// (and looks for due entries every few seconds), so the wait is bounded by ms, not by a guess.
export async function waitForMessage({ to, subject, after = 0, ms = 45_000 }) {
  const want = to.toLowerCase();
  const matches = (m) => m.seq > after &&
    [...(m.to ?? []), ...(m.envelope_to ?? [])].some((a) => a.toLowerCase() === want) &&
    (subject instanceof RegExp ? subject.test(m.subject) : m.subject.includes(subject));
  const deadline = Date.now() + ms;
  let seen = 0;
  for (;;) {
    const list = await messages();
    seen = list.length;
    const found = list.find(matches);
    if (found) {
      return found;
    }
    if (Date.now() > deadline) {
      throw new Error(`no message to ${to} with subject ${subject} within ${ms} ms (${seen} messages in the mailbox)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// lastSeq is the seq of the newest message (0 if there is none): a mark for waitForMessage's
// `after`, so that a test waits for the message its own step caused.
export async function lastSeq() {
  const list = await messages();
  return list.reduce((max, m) => Math.max(max, m.seq), 0);
}

// linkIn returns the one link in the message's text part that starts with prefix (such as
// `${issuer}/login/reset?token=`); it fails if there is none or more than one.
export function linkIn(message, prefix) {
  const links = (message.text.match(/https?:\/\/[^\s<>"]+/g) ?? []).filter((l) => l.startsWith(prefix));
  if (links.length !== 1) {
    throw new Error(`expected one link starting with ${prefix} in ${JSON.stringify(message.subject)}, found ${links.length}: ${message.text}`);
  }
  return new URL(links[0]);
}
