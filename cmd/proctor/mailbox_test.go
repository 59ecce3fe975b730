package main

import (
	"bytes"
	"context"
	"net/smtp"
	"strings"
	"testing"
)

func TestMailboxCommand(t *testing.T) {
	for _, args := range [][]string{
		{"mailbox", "--smtp-addr", "0.0.0.0:0", "--http-addr", "127.0.0.1:0"},
		{"mailbox", "--smtp-addr", "127.0.0.1:0", "--http-addr", "0.0.0.0:0"},
	} {
		refused(t, "loopback", args...)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	ports, mailbox := startServing(t, 2, func(p []string) error {
		out.Reset()
		return runMailbox(ctx, p[0], p[1], &out)
	}, func(p []string) (string, string) { return "http://" + p[1] + "/mail", p[1] })
	smtpAddr, httpAddr := ports[0], ports[1]
	msg := "From: a@localhost\r\nTo: b@localhost\r\nSubject: Hello mailbox\r\n\r\nhi\r\n"
	if err := smtp.SendMail(smtpAddr, nil, "a@localhost", []string{"b@localhost"}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	if body := mustAnswer(t, "http://"+httpAddr+"/mail/messages.json", httpAddr, mailbox); !strings.Contains(body, "Hello mailbox") {
		t.Errorf("messages: %s", body)
	}
	cancel()
	if err := mailbox.wait(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "http://"+httpAddr+"/mail") {
		t.Errorf("banner: %s", out.String())
	}
}
