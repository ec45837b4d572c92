package browse

import (
	"net/netip"

	"rehome/backend/actions"
)

// AddrClass is what kind of address an IP address is, for the fetch
// guards.
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

// Classify says what kind of address ip is, by the actions' own
// classification (backend/actions.Classify: one list of ranges for every
// guard rehome has), in the fetch guards' words: CGNAT is a private
// network here, the unspecified address is refused as such. An IPv4
// address written as IPv6 (::ffff:a.b.c.d, NAT64, 6to4) is the IPv4
// address it carries.
func Classify(ip netip.Addr) AddrClass {
	if !ip.IsValid() || ip.Unmap().IsUnspecified() {
		return Unspecified
	}
	switch actions.Classify(ip) {
	case actions.ReachPublic:
		return Public
	case actions.ReachLoopback:
		return Loopback
	case actions.ReachPrivate, actions.ReachCGNAT:
		return Private
	case actions.ReachLinkLocal:
		return LinkLocal
	case actions.ReachMetadata:
		return Metadata
	}
	if u := ip.Unmap(); u.IsMulticast() || u == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return Multicast
	}
	return Reserved
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
