package cli

import (
	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/config"
)

func (a *App) configCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config list | get KEY | set KEY VALUE",
		Short: "Show or change reflect's settings (shared in reflect.toml, local in .git/reflect/config.toml)",
		Long: `Settings live in two files. reflect.toml is committed and synced: recall budgets, digest
sizes, hook deadlines — values anyone who can push to the remote may change, so none of them
can choose a program, a path, an endpoint or a credential here, and every time-out has a cap.
.git/reflect/config.toml is this machine's alone and never synced: the extractor and its model,
caps on LLM use, the commit author, automatic sync and its remote, recall.from_others.
set writes the key to the file it belongs to (a shared key is one commit).`,
		Args: NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	type setting struct {
		Key     string `json:"key"`
		Value   string `json:"value"`
		Scope   string `json:"scope"`
		Default string `json:"default"`
	}
	describe := func(c config.Config, k config.Key) setting {
		return setting{Key: k.Name, Value: c.Value(k), Scope: k.Scope.String(), Default: config.Default().Value(k)}
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "Every setting with its value, scope and default",
		Args:  NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.RepoToMend()
			if err != nil {
				return err
			}
			var out []setting
			for _, k := range config.Keys() {
				out = append(out, describe(r.Config(), k))
			}
			if a.JSON() {
				return a.PrintJSON(map[string]any{"settings": out, "ignored": r.SettingsWarnings()})
			}
			for _, s := range out {
				mark := ""
				if s.Value != s.Default {
					mark = "   (default " + s.Default + ")"
				}
				a.Printf("%-26s %-7s %s%s\n", s.Key, s.Scope, s.Value, mark)
			}
			for _, w := range r.SettingsWarnings() {
				a.Printf("ignored: %s\n", w)
			}
			return nil
		},
	}
	get := &cobra.Command{
		Use:   "get KEY",
		Short: "Print one setting's value",
		Args:  ExactArgs(1, "get needs a key, e.g. drain.extractor (reflect config list shows them)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := config.LookupKey(args[0])
			if err != nil {
				return &FlagError{err}
			}
			r, err := a.RepoToMend()
			if err != nil {
				return err
			}
			if a.JSON() {
				return a.PrintJSON(describe(r.Config(), k))
			}
			a.Printf("%s\n", r.Config().Value(k))
			return nil
		},
	}
	set := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Set one setting in the file it belongs to",
		Args:  ExactArgs(2, "set needs a key and a value, e.g. reflect config set sync.auto true"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := config.LookupKey(args[0]); err != nil {
				return &FlagError{err}
			}
			r, err := a.RepoToMend()
			if err != nil {
				return err
			}
			k, err := r.SetSetting(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			if a.JSON() {
				return a.PrintJSON(describe(r.Config(), k))
			}
			where := "reflect.toml (committed; synced with the memory)"
			if k.Scope == config.Local {
				where = r.LocalSettingsPath() + " (this machine only)"
			}
			a.Printf("%s = %s in %s\n", k.Name, r.Config().Value(k), where)
			return nil
		},
	}
	cmd.AddCommand(list, get, set)
	return cmd
}
