// Package browse is web browsing as rehome hosts it: Kiwix ZIM libraries
// the user carries (checked, registered, served by kiwix-serve on
// loopback, started on demand and stopped when idle, searched with the
// ZIM's own full-text index) and, where the machine may reach the web, a
// search engine the user names (SearXNG's JSON API or Brave Search) and
// a guarded page fetcher (http(s) only, private and loopback addresses
// refused unless the LAN is allowed, checked on the dialled address of
// every connection and redirect, size and time bounds, robots.txt).
//
// The text of a page or an article is extracted by the caller (core,
// inside the sandbox, as knowledge files are); this package fetches the
// bytes and keeps them bounded. For the window's reader it makes a
// library's article safe to show (ReaderHTML: its main part, links
// rewritten to the library's zim:// addresses or kept as absolute web
// addresses, then bluemonday's allow-list: nothing that runs or loads).
package browse
