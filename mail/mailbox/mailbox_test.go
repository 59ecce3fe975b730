package mailbox

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/smtp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const sample = "From: \"School A\" <noreply@a.example>\r\n" +
	"To: <ada@example.test>\r\n" +
	"Subject: =?UTF-8?q?Caf=C3=A9_<script>?=\r\n" +
	"Message-ID: <outbox.1@a.example>\r\n" +
	"Date: Sun, 01 Mar 2026 09:00:00 +0000\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/alternative; boundary=XX\r\n" +
	"\r\n" +
	"--XX\r\n" +
	"Content-Type: text/plain; charset=UTF-8\r\n" +
	"Content-Transfer-Encoding: quoted-printable\r\n" +
	"\r\n" +
	"Open https://a.example/x?token=3D1&b=3D\"<b>\r\n" +
	"--XX\r\n" +
	"Content-Type: text/html; charset=UTF-8\r\n" +
	"Content-Transfer-Encoding: base64\r\n" +
	"\r\n" +
	"PHA+SGk8L3A+\r\n" +
	"--XX--\r\n"

func TestParse(t *testing.T) {
	m := Parse([]byte(sample))
	if m.ParseError != "" {
		t.Fatalf("parse error: %s", m.ParseError)
	}
	if m.From != "noreply@a.example" || m.FromName != "School A" || len(m.To) != 1 || m.To[0] != "ada@example.test" ||
		m.Subject != "Café <script>" || m.MessageID != "outbox.1@a.example" || m.ContentType != "multipart/alternative" {
		t.Errorf("headers: %+v", m)
	}
	if m.Text != "Open https://a.example/x?token=1&b=\"<b>" || m.HTML != "<p>Hi</p>" {
		t.Errorf("parts: text %q html %q", m.Text, m.HTML)
	}
	if bad := Parse([]byte("not a message")); bad.ParseError == "" {
		t.Error("no parse error for garbage")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("Subject: x\r\n\r\nbody"))
	f.Add([]byte("Content-Type: multipart/mixed; boundary=a\r\n\r\n--a\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\n\r\nx\r\n--b--\r\n--a--\r\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m := Parse(raw)
		if len(m.Text) > len(raw) || len(m.HTML) > len(raw) {
			t.Errorf("a part longer than the message")
		}
	})
}

func send(t *testing.T, addr, to string) error {
	t.Helper()
	return smtp.SendMail(addr, nil, "noreply@a.example", []string{to}, []byte(sample))
}

// TestMailbox: messages arrive over SMTP, Wait finds them, Stop refuses connections and Resume
// listens again on the same address; old messages go past Keep.
func TestMailbox(t *testing.T) {
	box, err := Start(Options{Keep: 2, Reject: func(rcpt string) bool { return rcpt == "gone@example.test" }})
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	addr := box.Addr()
	if host, port := box.HostPort(); host != "127.0.0.1" || port == 0 || host+":"+strconv.Itoa(port) != addr {
		t.Errorf("HostPort() = %q, %d for %s", host, port, addr)
	}
	if err := send(t, addr, "ada@example.test"); err != nil {
		t.Fatal(err)
	}
	m, err := box.Wait(ctx, func(m Message) bool { return m.EnvelopeTo[0] == "ada@example.test" })
	if err != nil || m.Seq != 1 || m.EnvelopeFrom != "noreply@a.example" {
		t.Fatalf("Wait: %+v, %v", m, err)
	}
	if err := send(t, addr, "gone@example.test"); err == nil || !strings.Contains(err.Error(), "550") {
		t.Errorf("a rejected recipient: %v", err)
	}

	box.Stop()
	if err := send(t, addr, "bob@example.test"); err == nil {
		t.Error("sent to a stopped mailbox")
	}
	if err := box.Resume(); err != nil {
		t.Fatal(err)
	}
	if box.Addr() != addr {
		t.Errorf("resumed on %s, want %s", box.Addr(), addr)
	}
	for _, to := range []string{"bob@example.test", "cy@example.test"} {
		if err := send(t, addr, to); err != nil {
			t.Fatal(err)
		}
	}
	msgs := box.Messages()
	if len(msgs) != 2 || msgs[0].EnvelopeTo[0] != "bob@example.test" || msgs[1].Seq != 3 {
		t.Errorf("kept: %+v", msgs)
	}

	waitCtx, stop := context.WithCancel(t.Context())
	stop()
	if _, err := box.Wait(waitCtx, func(Message) bool { return false }); err == nil {
		t.Error("Wait without a match returned no error")
	}
}

func TestStartRefusesNetworkAddresses(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:25"} {
		if box, err := Start(Options{Addr: addr}); err == nil {
			box.Close()
			t.Errorf("listened on %s", addr)
		}
	}
}

func TestHandler(t *testing.T) {
	box, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	if err := send(t, box.Addr(), "ada@example.test"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(box.Handler())
	defer srv.Close()

	res, err := http.Get(srv.URL + "/mail")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	page := string(body)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /mail: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if strings.Contains(page, "<script>") || !strings.Contains(page, "Café &lt;script&gt;") {
		t.Errorf("subject not escaped: %s", page)
	}
	if !strings.Contains(page, `<a href="https://a.example/x?token=1&amp;b=" rel="noreferrer">`) || strings.Contains(page, "<p>Hi</p>") {
		t.Errorf("text links or HTML source: %s", page)
	}

	res, err = http.Get(srv.URL + "/mail/messages.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc struct {
		Messages []Message `json:"messages"`
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil || len(doc.Messages) != 1 || doc.Messages[0].HTML != "<p>Hi</p>" {
		t.Errorf("JSON: %+v, %v", doc, err)
	}
}

// TestLinkify: only http(s) links become anchors, and everything is escaped.
func TestLinkify(t *testing.T) {
	got := string(linkify(`go javascript:alert(1) <i> https://x.example/a?b=1&c="2"`))
	want := `go javascript:alert(1) &lt;i&gt; <a href="https://x.example/a?b=1&amp;c=" rel="noreferrer">https://x.example/a?b=1&amp;c=</a>&#34;2&#34;`
	if got != want {
		t.Errorf("linkify:\n got %s\nwant %s", got, want)
	}
}
