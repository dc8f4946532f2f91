package enginecmd

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/view"
)

func (a *app) viewCmd() *cobra.Command {
	var addr string
	var noOpen bool
	cmd := &cobra.Command{
		Use:   "view [--addr 127.0.0.1:0] [--no-open]",
		Short: "Browse, search and curate the memory in a local web page",
		Long: `Serve a web page on this machine (loopback only) to browse and search the learnings,
read each one with its git history, edit, archive, supersede and merge them (each change one
commit, as the CLI makes it), look at the queue and the drain, search the session history
and see the activity. The URL it prints carries a token of this run: only a browser given
that URL can use the page. Ctrl-C stops it.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			home := r.Root()
			r.Close()
			ln, err := view.Listen(addr)
			var ae *view.AddrError
			if errors.As(err, &ae) {
				return cli.FlagErrorf("%v", err)
			}
			if err != nil {
				return err
			}
			srv, err := view.New(view.Options{Home: home, Log: a.Log,
				OpenRepo: func(string) (*gitstore.Repo, error) { return a.Repo() }})
			if err != nil {
				ln.Close()
				return err
			}
			defer srv.Close()
			go func() {
				if err := srv.Warm(); err != nil {
					a.Log.Warn("read the learnings", "err", err)
				}
			}()
			url := srv.URL(ln)
			if a.JSON() {
				a.PrintJSON(map[string]string{"url": url, "home": home})
			} else {
				a.Printf("reflect view of %s\n%s\n(Ctrl-C stops it)\n", home, url)
			}
			if !noOpen {
				if err := openBrowser(url); err != nil {
					a.Log.Warn("open a browser", "err", err)
					a.Printf("open the URL above in a browser (%v)\n", err)
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return srv.Serve(ctx, ln)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "loopback address and port to listen on (0: any free port)")
	cmd.Flags().BoolVar(&noOpen, "no-open", false, "print the URL without opening a browser")
	return cmd
}

// openBrowser hands url to the desktop's opener, without waiting for the browser.
func openBrowser(url string) error {
	var c *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		c = exec.Command("open", url)
	case "windows":
		c = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		c = exec.Command("xdg-open", url)
	}
	if err := c.Start(); err != nil {
		return err
	}
	go c.Wait()
	return nil
}
