package main

import (
	"fmt"
	"os"

	"github.com/encbench/encbench/internal/report"
)

func main() {
	paths, err := report.WriteSeeds(os.Args[1], report.Options{Lang: "en"})
	fmt.Println(paths, err)
}
