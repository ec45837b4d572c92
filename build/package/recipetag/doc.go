// Command recipetag prints the tag of the sandbox image recipe in this tree
// (the first 12 hex digits of its digest), as rehome built from it expects;
// with -digest, the whole digest.
package main
