// Command reflect gives coding agents a memory their user owns, kept in a git repository.
package main

import "os"

func main() { os.Exit(Main()) }
