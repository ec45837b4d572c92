package browse

import (
	"net/netip"
)

// AddrClass is what kind of address an IP address is, for the fetch
// guards. It is one small function of its own so that the actions'
// dial-time check (backend/actions) can share it.
type AddrClass string

// The classes of address.
const (
	Public      AddrClass = "public"
	Loopback    AddrClass = "loopback"
	Private     AddrClass = "private"    // RFC 1918, CGNAT, unique-local IPv6
	LinkLocal   AddrClass = "link-local" // 169.254/16, fe80::/10
	Metadata    AddrClass = "cloud metadata"
	Unspecified AddrClass = "unspecified"
	Multicast   AddrClass = "multicast or broadcast"
	Reserved    AddrClass = "reserved"
)

var (
	metadataAddrs = []netip.Addr{netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("fd00:ec2::254"), netip.MustParseAddr("100.100.100.200")}
	privateNets   = prefixes("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "198.18.0.0/15", "fc00::/7")
	reservedNets  = prefixes("0.0.0.0/8", "192.0.0.0/24", "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "2001:db8::/32", "100::/64")
	nat64         = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour     = netip.MustParsePrefix("2002::/16")
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// Classify says what kind of address ip is. An IPv4 address written as
// IPv6 (::ffff:a.b.c.d, NAT64's 64:ff9b::/96, 6to4's 2002::/16) is the
// IPv4 address it carries.
func Classify(ip netip.Addr) AddrClass {
	ip = ip.Unmap()
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip):
			return Classify(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case sixToFour.Contains(ip):
			return Classify(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	for _, m := range metadataAddrs {
		if ip == m {
			return Metadata
		}
	}
	switch {
	case !ip.IsValid() || ip.IsUnspecified():
		return Unspecified
	case ip.IsLoopback():
		return Loopback
	case ip.IsMulticast() || ip == netip.MustParseAddr("255.255.255.255"):
		return Multicast
	case ip.IsLinkLocalUnicast():
		return LinkLocal
	}
	for _, p := range privateNets {
		if p.Contains(ip) {
			return Private
		}
	}
	for _, p := range reservedNets {
		if p.Contains(ip) {
			return Reserved
		}
	}
	return Public
}

// Allowed says whether a fetch may dial an address of class c: public
// ones always; loopback, private and link-local ones only when the user
// allows the LAN; cloud metadata, unspecified, multicast and reserved
// ones never.
func (c AddrClass) Allowed(allowLAN bool) bool {
	switch c {
	case Public:
		return true
	case Loopback, Private, LinkLocal:
		return allowLAN
	}
	return false
}
