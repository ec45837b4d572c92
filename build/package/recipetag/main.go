// Command recipetag prints the tag of the sandbox image recipe in this tree
// (the first 12 hex digits of its digest), as rehome built from it expects;
// with -digest, the whole digest.
package main

import (
	"fmt"
	"os"

	recipe "rehome/build/sandbox"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-digest" {
		fmt.Println(recipe.Digest())
		return
	}
	fmt.Println(recipe.Tag())
}
