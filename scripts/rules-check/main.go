// rules-check checks Prometheus rule files as `promtool check rules` does, with the same code
// (Prometheus' rulefmt, which parses every expression and template), and lists the metrics each
// expression reads, so a test can hold them against what the services export. Expressions given
// on standard input (a JSON array of strings: a dashboard's queries) are parsed the same way.
//
//	go run . <rule file>... < expressions.json
//
// It prints JSON; a rule file or expression that does not parse prints its errors on stderr and
// exits 1.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"

	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

const prometheusModule = "github.com/prometheus/prometheus"

type rule struct {
	Alert   string            `json:"alert,omitempty"`
	Record  string            `json:"record,omitempty"`
	Expr    string            `json:"expr"`
	For     string            `json:"for,omitempty"`
	Labels  map[string]string `json:"labels"`
	Metrics []string          `json:"metrics"`
}

type group struct {
	Name  string `json:"name"`
	Rules []rule `json:"rules"`
}

type ruleFile struct {
	File   string  `json:"file"`
	Groups []group `json:"groups"`
}

type expression struct {
	Expr    string   `json:"expr"`
	Metrics []string `json:"metrics"`
}

type output struct {
	Prometheus  string       `json:"prometheus"`
	Files       []ruleFile   `json:"files"`
	Expressions []expression `json:"expressions"`
}

// metricsOf lists the metric names an expression's selectors read.
func metricsOf(expr string) ([]string, error) {
	node, err := parser.ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	parser.Inspect(node, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok && vs.Name != "" {
			seen[vs.Name] = true
		}
		return nil
	})
	names := []string{}
	for name := range seen {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

func prometheusVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == prometheusModule {
				return dep.Version
			}
		}
	}
	return "unknown"
}

func main() {
	failed := false
	out := output{Prometheus: prometheusVersion(), Files: []ruleFile{}, Expressions: []expression{}}
	for _, file := range os.Args[1:] {
		// Unknown fields refused, as promtool does by default.
		groups, errs := rulefmt.ParseFile(file, false)
		if len(errs) > 0 {
			failed = true
			for _, err := range errs {
				fmt.Fprintf(os.Stderr, "%s: %v\n", file, err)
			}
			continue
		}
		rf := ruleFile{File: file, Groups: []group{}}
		for _, g := range groups.Groups {
			gr := group{Name: g.Name, Rules: []rule{}}
			for _, r := range g.Rules {
				metrics, _ := metricsOf(r.Expr) // parsed by ParseFile already
				forText := ""
				if r.For != 0 {
					forText = r.For.String()
				}
				labels := r.Labels
				if labels == nil {
					labels = map[string]string{}
				}
				gr.Rules = append(gr.Rules, rule{Alert: r.Alert, Record: r.Record, Expr: r.Expr, For: forText, Labels: labels, Metrics: metrics})
			}
			rf.Groups = append(rf.Groups, gr)
		}
		out.Files = append(out.Files, rf)
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var exprs []string
	if len(input) > 0 {
		if err := json.Unmarshal(input, &exprs); err != nil {
			fmt.Fprintf(os.Stderr, "standard input: not a JSON array of strings: %v\n", err)
			os.Exit(1)
		}
	}
	for _, expr := range exprs {
		metrics, err := metricsOf(expr)
		if err != nil {
			failed = true
			fmt.Fprintf(os.Stderr, "%q: %v\n", expr, err)
			continue
		}
		out.Expressions = append(out.Expressions, expression{Expr: expr, Metrics: metrics})
	}
	if failed {
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
