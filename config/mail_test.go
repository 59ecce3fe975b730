package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestMailSettings(t *testing.T) {
	server := writeServer(t, map[string]string{
		"schools/a.yaml": "school_id: 1\nsubdomain: a\nname: North Academy\nbase_url: http://localhost:8080\n",
		"schools/b.yaml": "school_id: 2\nsubdomain: b\nname: B\nbase_url: http://localhost:8081\nmail: {from: office@b.example, from_name: The B Office}\n",
		"smtp-password":  "s3cret-pass\n",
	}, "mail: {host: smtp.example.com, username: proctor, password_file: smtp-password, from: noreply@example.com}\n")
	cfg, err := Load(server)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	m := cfg.Server.Mail
	if !m.Enabled() || m.Port != 587 || m.TLS != MailTLSStartTLS || m.Timeout != DefaultMailTimeout ||
		string(m.Password) != "s3cret-pass" || m.Username != "proctor" {
		t.Errorf("mail = %+v (password %q)", m, string(m.Password))
	}
	if s := fmt.Sprintf("%v %+v %#v", m, m, m.Password); strings.Contains(s, "s3cret") {
		t.Errorf("the password prints: %s", s)
	}
	if addr, name := cfg.Schools[0].MailFrom(m); addr != "noreply@example.com" || name != "North Academy" {
		t.Errorf("school a's From = %q %q", name, addr)
	}
	if addr, name := cfg.Schools[1].MailFrom(m); addr != "office@b.example" || name != "The B Office" {
		t.Errorf("school b's From = %q %q", name, addr)
	}
}

func TestMailOffByDefault(t *testing.T) {
	if DefaultServer().Mail.Enabled() {
		t.Error("mail is on without a host")
	}
}

func TestMailProblems(t *testing.T) {
	for name, tc := range map[string]struct {
		mail, schoolMail string
		file, field      string
	}{
		"plain text off loopback": {"{host: smtp.example.com, tls: none, from: a@example.com}", "", "proctor.yaml", "mail.tls"},
		"unknown tls mode":        {"{host: smtp.example.com, tls: ssl, from: a@example.com}", "", "proctor.yaml", "mail.tls"},
		"no from":                 {"{host: smtp.example.com}", "", "proctor.yaml", "mail.from"},
		"bad from":                {"{host: smtp.example.com, from: 'Name <a@example.com>'}", "", "proctor.yaml", "mail.from"},
		"bad port":                {"{host: smtp.example.com, from: a@example.com, port: 70000}", "", "proctor.yaml", "mail.port"},
		"host with port":          {"{host: 'smtp.example.com:25', from: a@example.com}", "", "proctor.yaml", "mail.host"},
		"bad timeout":             {"{host: smtp.example.com, from: a@example.com, timeout: 0s}", "", "proctor.yaml", "mail.timeout"},
		"password twice":          {"{host: smtp.example.com, from: a@example.com, username: u, password: p, password_file: f}", "", "proctor.yaml", "mail.password"},
		"password file missing":   {"{host: smtp.example.com, from: a@example.com, username: u, password_file: nowhere}", "", "proctor.yaml", "mail.password_file"},
		"password without user":   {"{host: smtp.example.com, from: a@example.com, password: p}", "", "proctor.yaml", "mail.username"},
		"school from":             {"{}", "mail: {from: not-an-address}\n", "a.yaml", "mail.from"},
		"school from_name":        {"{}", "mail: {from_name: \"two\\nlines\"}\n", "a.yaml", "mail.from_name"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(writeServer(t, map[string]string{"schools/a.yaml": validSchool + tc.schoolMail}, "mail: "+tc.mail+"\n"))
			var problems Errors
			if !errors.As(err, &problems) {
				t.Fatalf("Load error = %v, want Errors", err)
			}
			for _, p := range problems {
				if filepath.Base(p.File) == tc.file && p.Field == tc.field {
					if strings.Contains(p.Msg, "password: p") {
						t.Errorf("a problem quotes the password: %s", p.Msg)
					}
					return
				}
			}
			t.Errorf("no problem for %s %s; got %v", tc.file, tc.field, err)
		})
	}
}
