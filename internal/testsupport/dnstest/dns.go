package dnstest

import (
	"context"
	"net"
	"net/netip"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// New is a real DNS server on 127.0.0.1 (UDP) answering A queries for
// names (fully qualified, "api.rebind.test." → "127.0.0.1"), and a
// resolver that asks only it. The server stops when the test ends.
func New(t *testing.T, names map[string]string) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if out := answer(buf[:n], names); out != nil {
				pc.WriteTo(out, from)
			}
		}
	}()
	addr := pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

// answer is the reply to query q: its A record when names has the name,
// else an empty answer; nil for what is not a DNS query.
func answer(q []byte, names map[string]string) []byte {
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil {
		return nil
	}
	qs, err := p.AllQuestions()
	if err != nil || len(qs) == 0 {
		return nil
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
	b.EnableCompression()
	b.StartQuestions()
	b.Question(qs[0])
	b.StartAnswers()
	if ip, ok := names[qs[0].Name.String()]; ok && qs[0].Type == dnsmessage.TypeA {
		b.AResource(dnsmessage.ResourceHeader{Name: qs[0].Name, Class: dnsmessage.ClassINET}, dnsmessage.AResource{A: netip.MustParseAddr(ip).As4()})
	}
	out, _ := b.Finish()
	return out
}
