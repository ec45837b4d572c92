// Package zimtest builds real ZIM files for the browsing tests: real
// HTML (Debian's python3.11-doc, the Python 3.11 documentation) packed by
// openzim's zimwriterfs (Debian's zim-tools) with its full-text index,
// cached under the system's temporary folder by what went in.
package zimtest
