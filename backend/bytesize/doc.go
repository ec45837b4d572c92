// Package bytesize holds rehome's one rule for sizes in bytes: how a size the
// user types is read (Parse) and how a size is written (Format).
//
// The rule: KiB, MiB, GiB and TiB are binary (2¹⁰, 2²⁰, 2³⁰, 2⁴⁰);
// KB, MB, GB and TB are decimal (10³, 10⁶, 10⁹, 10¹²), as on a spec sheet;
// a bare letter (512m, 2g) is binary, as Podman reads it; a bare number is
// bytes. Units are case-insensitive. Sizes are int64 throughout, and are
// always written in binary units.
package bytesize
