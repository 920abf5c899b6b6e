// Command ferretdb runs FerretDB 1.x over an SQLite directory for the local stack.
//
// It embeds FerretDB's `ferretdb` package instead of building FerretDB's own command, whose
// build generates a version file that the published module lacks (that binary panics at start).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27018", "TCP address to listen on")
	dir := flag.String("sqlite-dir", "data", "directory of the SQLite databases (created if missing)")
	flag.Parse()

	if err := run(*listen, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}
}

func run(listen, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err = os.MkdirAll(abs, 0o755); err != nil {
		return err
	}

	// FerretDB logs every connection at info level; warnings are what a person needs here.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: listen},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + filepath.ToSlash(abs) + "/",
	})
	if err != nil {
		return err
	}

	// SIGTERM (stack:down) and SIGINT end Run, which closes the listener and the databases cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	fmt.Fprintf(os.Stderr, "ferretdb: listening on %s, databases in %s\n", listen, abs)
	return f.Run(ctx)
}
