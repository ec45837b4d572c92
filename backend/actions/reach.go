package actions

import (
	"net"
	"net/netip"
	"syscall"
	"time"
)

// Where an action may call: the address a call actually dials (after DNS,
// on every redirect and every retry of the dial) is sorted into one of
// these. An action reaches this machine and its networks only when the
// user allowed it for that action (Client.AllowLocal); an air-gapped
// machine's calls reach loopback and the private LAN only.

// Reach is the kind of an address an action call dials.
type Reach string

// The kinds of address.
const (
	// ReachPublic: anywhere else (the internet).
	ReachPublic Reach = "public"
	// ReachLoopback: this machine (127/8, ::1, 0.0.0.0 and ::, which
	// Linux connects to this machine too).
	ReachLoopback Reach = "loopback"
	// ReachPrivate: a private LAN (10/8, 172.16/12, 192.168/16) or an
	// IPv6 unique-local address (fc00::/7).
	ReachPrivate Reach = "private"
	// ReachLinkLocal: the link (169.254/16, fe80::/10).
	ReachLinkLocal Reach = "link-local"
	// ReachCGNAT: carrier-grade NAT space (100.64/10, RFC 6598), where
	// overlay networks (Tailscale and the like) put machines.
	ReachCGNAT Reach = "CGNAT"
	// ReachMetadata: a cloud's instance metadata service
	// (169.254.169.254, 169.254.170.2, fd00:ec2::254, 100.100.100.200),
	// which hands out the machine's credentials.
	ReachMetadata Reach = "metadata"
	// ReachReserved: addresses no API answers on (multicast, broadcast,
	// documentation, benchmarking and reserved ranges).
	ReachReserved Reach = "reserved"
)

var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("169.254.170.2"),
	netip.MustParseAddr("fd00:ec2::254"), netip.MustParseAddr("100.100.100.200"),
}

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

var (
	cgnat    = prefixes("100.64.0.0/10")
	reserved = prefixes("0.0.0.0/8", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24",
		"203.0.113.0/24", "240.0.0.0/4", "2001:db8::/32", "100::/64")
	// IPv6 forms that carry an IPv4 address: NAT64 and 6to4.
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
)

// Classify says what kind of address ip is. An IPv4 address written as
// IPv6 (::ffff:127.0.0.1, NAT64's 64:ff9b::7f00:1, 6to4's 2002:7f00:1::)
// is the IPv4 address it carries.
func Classify(ip netip.Addr) Reach {
	ip = ip.Unmap()
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip):
			return Classify(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case sixTo4.Contains(ip):
			return Classify(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	for _, m := range metadataAddrs {
		if ip == m {
			return ReachMetadata
		}
	}
	switch {
	case ip.IsLoopback() || ip.IsUnspecified():
		return ReachLoopback
	case ip.IsLinkLocalUnicast():
		return ReachLinkLocal
	case ip.IsPrivate():
		return ReachPrivate
	case ip.IsMulticast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return ReachReserved
	}
	for _, p := range cgnat {
		if p.Contains(ip) {
			return ReachCGNAT
		}
	}
	for _, p := range reserved {
		if p.Contains(ip) {
			return ReachReserved
		}
	}
	return ReachPublic
}

// airGappedReach is what an air-gapped machine's calls may dial: this
// machine and its private LAN, not the link, metadata or CGNAT.
func airGappedReach(r Reach) bool { return r == ReachLoopback || r == ReachPrivate }

// LocalHost says whether a server's host (a name or an address, with or
// without a port) is plainly on this machine or its networks — an
// address of a local kind, or localhost. A name may still resolve to one:
// the dial guard is what holds; this is for the words at import.
func LocalHost(host string) bool {
	h := host
	if x, _, err := net.SplitHostPort(host); err == nil {
		h = x
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return Classify(a) != ReachPublic
	}
	switch n := trimDot(h); {
	case n == "localhost", len(n) > 10 && n[len(n)-10:] == ".localhost":
		return true
	}
	return false
}

func trimDot(s string) string {
	for len(s) > 0 && s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

// Guard is what a dial may reach, checked on the address about to be
// dialled (after DNS, on every redirect and retry), so a name that
// resolves elsewhere than it looked (DNS rebinding) cannot pass.
type Guard struct {
	// AllowLocal lets the dial reach every local kind (loopback,
	// private, link-local, CGNAT, metadata): an action the user allowed.
	AllowLocal bool
	// AllowNear lets it reach this machine, the LAN and CGNAT, never the
	// link or a metadata service: an address the user typed himself (an
	// MCP server's URL), which no import carries.
	AllowNear bool
	// AirGapped refuses all but loopback and the private LAN.
	AirGapped bool
	// What names the thing dialled in the refusals (default "the API");
	// AirGappedBy says what made the machine air-gapped (default "the
	// audit's setting"); Undo how to stop it (default "audit the assistant
	// as online").
	What, AirGappedBy, Undo string
}

// Dialer dials with the guard as its Control, within 10 seconds; a nil
// resolver is the system's.
func (g Guard) Dialer(res *net.Resolver) *net.Dialer {
	return &net.Dialer{Timeout: 10 * time.Second, Resolver: res, Control: g.Control}
}

// Control is the dialer's Control: it sees the address about to be
// dialled, after DNS, and refuses what the dial may not reach.
func (g Guard) Control(network, address string, _ syscall.RawConn) error {
	what, by := g.What, g.AirGappedBy
	if what == "" {
		what = "the API"
	}
	if by == "" {
		by = "the audit's setting"
	}
	undo := g.Undo
	if undo == "" {
		undo = "audit the assistant as online"
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return refused("the address %s does not parse: rehome calls only addresses it can check", address)
	}
	r := Classify(ap.Addr())
	switch {
	case g.AirGapped && !airGappedReach(r):
		return refused("the machine is air-gapped (%s) and %s is %s, outside loopback and the private LAN: rehome calls only this machine and the LAN there; run %s on this machine or the LAN, or %s", by, address, words(r), what, undo)
	case r == ReachReserved:
		return refused("%s is a reserved address (multicast, broadcast, documentation or benchmarking), where no API answers: rehome does not call it", address)
	case g.AllowNear && (r == ReachMetadata || r == ReachLinkLocal):
		return refused("%s is %s: rehome never dials the link's addresses for %s (a cloud's metadata service answers there and hands out this machine's credentials); give %s's address on this machine or the LAN", address, words(r), what, what)
	case r != ReachPublic && !g.AllowLocal && !g.AllowNear:
		return &LocalError{Address: address, Reach: r}
	}
	return nil
}

func words(r Reach) string {
	switch r {
	case ReachPublic:
		return "on the internet"
	case ReachLoopback:
		return "this machine (loopback)"
	case ReachPrivate:
		return "on a private network"
	case ReachLinkLocal:
		return "a link-local address"
	case ReachCGNAT:
		return "in carrier-grade NAT space (100.64/10)"
	case ReachMetadata:
		return "a cloud's instance metadata service, which hands out this machine's credentials"
	}
	return string(r)
}

// LocalError is a call refused because it would dial this machine or one
// of its networks and the user has not allowed that for the action. It
// unwraps to ErrRefused and ErrLocal.
type LocalError struct {
	Address string
	Reach   Reach
}

// Error says what was refused and how to allow it.
func (e *LocalError) Error() string {
	return ErrRefused.Error() + ": " + e.Address + " is " + words(e.Reach) + ", and this action is not allowed to reach local addresses (an imported assistant's never is): " +
		"if you run this API yourself, allow it with `rehome actions allow-local ASSISTANT ACTION` or the action's \"May call local addresses\" box in the assistant editor"
}

// Unwrap makes errors.Is(err, ErrRefused) and errors.Is(err, ErrLocal) true.
func (e *LocalError) Unwrap() []error { return []error{ErrRefused, ErrLocal} }
