package schools

import (
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/mail/mailbox"
)

// Mailbox starts a mailbox of the test with options o, closed when the test ends, and returns
// it with the settings that send to it: plain text to its loopback address, with a timeout that
// a busy machine does not run into.
func Mailbox(t testing.TB, o mailbox.Options) (*mailbox.Mailbox, mail.SMTPSettings) {
	t.Helper()
	box, err := mailbox.Start(o)
	if err != nil {
		t.Fatalf("mailbox: %v", err)
	}
	t.Cleanup(func() { _ = box.Close() })
	host, port := box.HostPort()
	return box, mail.SMTPSettings{Host: host, Port: port, TLS: config.MailTLSNone, Timeout: 30 * time.Second}
}
