package systemtest

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// tcpProxy forwards connections from a loopback port to a target address. cut closes the
// listener and every connection it carries, as a database host going away would; up listens
// again on the same port.
type tcpProxy struct {
	target string
	addr   string // 127.0.0.1:port, fixed by the first up ("" before it)

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

func newTCPProxy(target string) *tcpProxy {
	return &tcpProxy{target: target, conns: map[net.Conn]struct{}{}}
}

// up starts listening (on the port of the first up, whatever it was). The first up's port is
// chosen as freeAddr chooses, so that no server is given it while the proxy is cut.
func (p *tcpProxy) up() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		return errors.New("proxy: already up")
	}
	var ln net.Listener
	var err error
	if p.addr == "" {
		ln, err = listenFree()
	} else {
		ln, err = net.Listen("tcp", p.addr)
	}
	if err != nil {
		return err
	}
	p.ln, p.addr = ln, ln.Addr().String()
	p.wg.Add(1)
	go p.accept(ln)
	return nil
}

// cut closes the listener and every proxied connection, and waits for the goroutines.
func (p *tcpProxy) cut() {
	p.mu.Lock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// track registers c, or closes it and reports false when the proxy was cut meanwhile.
func (p *tcpProxy) track(ln net.Listener, c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != ln {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *tcpProxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *tcpProxy) accept(ln net.Listener) {
	defer p.wg.Done()
	for {
		client, err := ln.Accept()
		if err != nil {
			return
		}
		if !p.track(ln, client) {
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.untrack(client)
			server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
			if err != nil {
				return
			}
			if !p.track(ln, server) {
				return
			}
			defer p.untrack(server)
			done := make(chan struct{}, 2)
			pipe := func(dst, src net.Conn) {
				_, _ = io.Copy(dst, src)
				// Either side ending ends both: closing makes the other copy return.
				dst.Close()
				src.Close()
				done <- struct{}{}
			}
			go pipe(server, client)
			go pipe(client, server)
			<-done
			<-done
		}()
	}
}
