package childproc

import (
	"net"
	"strings"
	"sync"
)

// Ports hands out the addresses a child's listeners are to bind on one loopback host, for a
// configuration written before the child starts (a school's base_url carries the port, so the
// child cannot listen on port 0 and say where).
//
// Two races are closed. An address is never handed out twice by one Ports: a port closed and
// asked for again may come back, and two listeners given one port (a server's public and
// internal ones, two servers, or a server and a proxy that closes its port and opens it again)
// fail. And an address from Hold stays listened on until Release, just before the child binds
// it: between the choice and the start the caller sets things up (migrations, seeding, builds:
// seconds on a busy machine), and a port merely closed could meanwhile be taken by another
// listener or an outgoing connection, of this process or another, and the child would fail to
// start. The window left, from Release to the child's bind, is the child's start: an acceptable
// race on one machine.
type Ports struct {
	host string
	mu   sync.Mutex
	seen map[string]bool
	held map[string]net.Listener
}

// NewPorts hands out ports of host ("127.0.0.1", "::1" or "[::1]").
func NewPorts(host string) *Ports {
	return &Ports{host: strings.Trim(host, "[]"), seen: map[string]bool{}, held: map[string]net.Listener{}}
}

// Listen listens on a port this Ports never handed out before, and hands the listener over: it
// is the caller's to serve on or close (an address where nothing listens, once closed). A port
// handed out before is kept open until a new one is found, so that it cannot come back at once.
func (p *Ports) Listen() (net.Listener, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.listen()
}

func (p *Ports) listen() (net.Listener, error) {
	var taken []net.Listener
	defer func() {
		for _, l := range taken {
			l.Close()
		}
	}()
	for {
		l, err := net.Listen("tcp", net.JoinHostPort(p.host, "0"))
		if err != nil {
			return nil, err
		}
		if addr := l.Addr().String(); !p.seen[addr] {
			p.seen[addr] = true
			return l, nil
		}
		taken = append(taken, l)
	}
}

// Hold returns n addresses as Listen chooses them, each still listened on until Release.
func (p *Ports) Hold(n int) ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	addrs := make([]string, 0, n)
	for range n {
		l, err := p.listen()
		if err != nil {
			p.release(addrs)
			return nil, err
		}
		addr := l.Addr().String()
		p.held[addr] = l
		addrs = append(addrs, addr)
	}
	return addrs, nil
}

// Release stops listening on addrs, for the child about to bind them. An address Hold did not
// return, or one already released, is passed over, so that a cleanup may release what a start
// released before.
func (p *Ports) Release(addrs ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.release(addrs)
}

// release closes and forgets the listeners held on addrs; the caller holds p.mu.
func (p *Ports) release(addrs []string) {
	for _, addr := range addrs {
		if l, ok := p.held[addr]; ok {
			l.Close()
			delete(p.held, addr)
		}
	}
}
