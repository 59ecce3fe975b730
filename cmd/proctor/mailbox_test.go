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
		if code, _, stderr := runCmd(t, "", args...); code != exitFailure || !strings.Contains(stderr, "loopback") {
			t.Errorf("%v: %d %s", args, code, stderr)
		}
	}

	smtpAddr, httpAddr := freePort(t), freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- runMailbox(ctx, smtpAddr, httpAddr, &out) }()
	waitFor(t, "http://"+httpAddr+"/mail", httpAddr)
	msg := "From: a@localhost\r\nTo: b@localhost\r\nSubject: Hello mailbox\r\n\r\nhi\r\n"
	if err := smtp.SendMail(smtpAddr, nil, "a@localhost", []string{"b@localhost"}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	if body := waitFor(t, "http://"+httpAddr+"/mail/messages.json", httpAddr); !strings.Contains(body, "Hello mailbox") {
		t.Errorf("messages: %s", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "http://"+httpAddr+"/mail") {
		t.Errorf("banner: %s", out.String())
	}
}
