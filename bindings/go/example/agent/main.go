// A small agent on the package: tests/integration/bindings.sh runs go vet
// on it (go vet ./...). Two workspaces at once, a deadline, an MCP server.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"cordon/isolation"
)

func main() {
	if err := isolation.Configure(isolation.Config{Enabled: true, Workspace: os.TempDir()}); err != nil {
		var ce *isolation.CordonError
		if errors.As(err, &ce) {
			fmt.Println("refused:", ce.Option, ce.Key, ce.Message)
		}
		os.Exit(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	for _, ws := range []string{"/srv/a", "/srv/b"} {
		cmd := exec.CommandContext(ctx, "sh", "-c", "make test")
		cmd.Dir = ws
		if err := isolation.PrepareCommandWith(cmd, isolation.Config{Enabled: true, Workspace: ws}); err != nil {
			fmt.Println(err)
			continue
		}
		if err := cmd.Start(); err == nil {
			fmt.Println(isolation.Wait(cmd))
		}
	}
}
