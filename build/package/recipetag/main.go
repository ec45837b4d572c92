package main

import (
	"fmt"
	"os"

	recipe "rehome/sandbox/recipe"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-digest" {
		fmt.Println(recipe.Digest())
		return
	}
	fmt.Println(recipe.Tag())
}
