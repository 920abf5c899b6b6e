// compose-check loads a compose file with compose-go, the loader Docker Compose itself uses
// (schema validation, interpolation, profiles, depends_on checks), once per shape asked for, and
// prints what each shape resolves to as JSON. No Docker engine is needed.
//
//	go run . <compose file> <shape>...
//
// A shape is "default" (no --profile: COMPOSE_PROFILES from the project's .env, as
// `docker compose up` does) or a profile name (as `docker compose --profile <name> up`). The
// environment of this process is not read, so a COMPOSE_PROFILES of the caller's cannot change
// the answer. A file that fails to load prints the loader's error and exits 1.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/sirupsen/logrus"
)

const composeGoModule = "github.com/compose-spec/compose-go/v2"

type dependency struct {
	Condition string `json:"condition"`
	Required  bool   `json:"required"`
}

type service struct {
	Image       string                `json:"image,omitempty"`
	Build       bool                  `json:"build"`
	Command     []string              `json:"command"`
	Restart     string                `json:"restart"`
	Profiles    []string              `json:"profiles"`
	Environment map[string]*string    `json:"environment"`
	DependsOn   map[string]dependency `json:"dependsOn"`
	Ports       []string              `json:"ports"`
	Volumes     []string              `json:"volumes"`
	Aliases     []string              `json:"aliases"`
}

type shape struct {
	Shape          string             `json:"shape"`
	ActiveProfiles []string           `json:"activeProfiles"`
	Services       map[string]service `json:"services"`
	Warnings       []string           `json:"warnings"`
}

type output struct {
	ComposeGo string  `json:"composeGo"`
	File      string  `json:"file"`
	Shapes    []shape `json:"shapes"`
}

// warnings keeps what the loader logs at warning level (an unset variable in an interpolation, an
// obsolete attribute): a file that loads with warnings still loads, so they are reported.
type warnings struct{ messages []string }

func (w *warnings) Levels() []logrus.Level {
	return []logrus.Level{logrus.PanicLevel, logrus.FatalLevel, logrus.ErrorLevel, logrus.WarnLevel}
}

func (w *warnings) Fire(entry *logrus.Entry) error {
	w.messages = append(w.messages, entry.Message)
	return nil
}

func composeGoVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == composeGoModule {
				return dep.Version
			}
		}
	}
	return "unknown"
}

func load(ctx context.Context, file string, name string, logged *warnings) (shape, error) {
	var profiles []string
	if name != "default" {
		profiles = []string{name}
	}
	options, err := cli.NewProjectOptions([]string{file},
		// As `docker compose` does, less the caller's environment: the project's .env, then the profiles.
		cli.WithEnvFiles(),
		cli.WithDotEnv,
		cli.WithDefaultProfiles(profiles...),
		cli.WithInterpolation(true),
		cli.WithNormalization(true),
		cli.WithConsistency(true),
		cli.WithResolvedPaths(false),
	)
	if err != nil {
		return shape{}, err
	}
	logged.messages = nil
	project, err := options.LoadProject(ctx)
	if err != nil {
		return shape{}, err
	}
	result := shape{Shape: name, ActiveProfiles: nonEmpty(project.Profiles), Services: map[string]service{}, Warnings: append([]string{}, logged.messages...)}
	for serviceName, s := range project.Services {
		result.Services[serviceName] = describe(s)
	}
	return result, nil
}

func describe(s types.ServiceConfig) service {
	out := service{
		Image:       s.Image,
		Build:       s.Build != nil,
		Command:     append([]string{}, s.Command...),
		Restart:     s.Restart,
		Profiles:    append([]string{}, s.Profiles...),
		Environment: map[string]*string(s.Environment),
		DependsOn:   map[string]dependency{},
		Ports:       []string{},
		Volumes:     []string{},
		Aliases:     []string{},
	}
	if out.Environment == nil {
		out.Environment = map[string]*string{}
	}
	for name, d := range s.DependsOn {
		out.DependsOn[name] = dependency{Condition: d.Condition, Required: d.Required}
	}
	for _, p := range s.Ports {
		host := ""
		if p.HostIP != "" {
			host = p.HostIP + ":"
		}
		out.Ports = append(out.Ports, fmt.Sprintf("%s%s:%s/%s", host, p.Published, fmt.Sprint(p.Target), p.Protocol))
	}
	for _, v := range s.Volumes {
		out.Volumes = append(out.Volumes, fmt.Sprintf("%s:%s", v.Source, v.Target))
	}
	for _, network := range s.Networks {
		if network != nil {
			out.Aliases = append(out.Aliases, network.Aliases...)
		}
	}
	sort.Strings(out.Aliases)
	return out
}

func nonEmpty(profiles []string) []string {
	out := []string{}
	for _, p := range profiles {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: compose-check <compose file> <shape>...   (shape: default, or a profile name)")
		os.Exit(2)
	}
	file, err := filepath.Abs(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	logged := &warnings{}
	logrus.AddHook(logged)
	// The hook above reports them in the JSON; logrus's own lines would only repeat them.
	logrus.SetOutput(io.Discard)
	result := output{ComposeGo: composeGoVersion(), File: file, Shapes: []shape{}}
	for _, name := range os.Args[2:] {
		loaded, err := load(context.Background(), file, name, logged)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s (%s): %v\n", filepath.Base(file), name, err)
			os.Exit(1)
		}
		result.Shapes = append(result.Shapes, loaded)
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", "  ")
	if err := encoder.Encode(result); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
