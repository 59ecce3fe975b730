package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/mail/mailbox"
)

func newMailboxCommand() *cobra.Command {
	var smtpAddr, httpAddr string
	cmd := &cobra.Command{
		Use:   "mailbox",
		Short: "Run an in-memory SMTP server that shows what it receives (development and tests, loopback only)",
		Long: `Run the mailbox alone: an SMTP server on loopback that accepts every message (and any AUTH
PLAIN credentials), keeps the last 200 in memory and shows them at http://<http-addr>/mail
(and as JSON at /mail/messages.json). Point a server's mail section at it with tls: none.

It listens on loopback addresses only: it accepts anything.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMailbox(cmd.Context(), smtpAddr, httpAddr, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&smtpAddr, "smtp-addr", "127.0.0.1:2525", "SMTP listener (loopback only)")
	cmd.Flags().StringVar(&httpAddr, "http-addr", "127.0.0.1:8025", "HTTP listener of the message list (loopback only)")
	return cmd
}

func runMailbox(ctx context.Context, smtpAddr, httpAddr string, out io.Writer) error {
	if err := mailbox.CheckLoopback(httpAddr); err != nil {
		return err
	}
	box, err := mailbox.Start(mailbox.Options{Addr: smtpAddr})
	if err != nil {
		return err
	}
	defer box.Close()
	l, err := net.Listen("tcp", httpAddr)
	if err != nil {
		return fmt.Errorf("http listener: %w", err)
	}
	hs := &http.Server{Handler: box.Handler(), ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(l) }()
	fmt.Fprintf(out, "mailbox: smtp %s, messages at http://%s/mail\n", box.Addr(), l.Addr())
	select {
	case <-ctx.Done():
	case err := <-errc:
		return err
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
