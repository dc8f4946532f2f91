package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	rcfg "github.com/reflect-memory/reflect/config"
)

// SettingsSplit says what SplitSettings moved.
type SettingsSplit struct {
	Moved []string // local keys carried from reflect.toml into .git/reflect/config.toml
	// Skipped are local keys dropped from reflect.toml and not carried: their value was not
	// valid, or (Remote) the memory has a remote.
	Skipped []string
	// Remote: the memory has a remote, so its reflect.toml may be anyone's who can push
	// to it; none of its local keys was carried over.
	Remote bool
}

// SplitSettings runs once per clone, the first time a reflect that keeps local settings apart
// opens a repository made before: the local keys of reflect.toml (the extractor, caps, author,
// automatic sync) move to .git/reflect/config.toml, and reflect.toml loses them in one commit.
// When the local file exists already it does nothing (one stat). A reflect.toml that does
// not parse is left alone (the error is the settings error of the repository). A memory
// with a remote carries none of them over, it only drops them: its reflect.toml is written
// by whoever can push there, and a remote's writer who set drain.extractor to a command,
// or drain.key_env to GITHUB_TOKEN, would have chosen the program this machine's drain runs
// or where its token goes (a memory made by git clone has no local file yet). Until the
// split, a local key in reflect.toml is ignored (config.Load), so a hook never splits: it
// would wait for the repository's lock past its deadline.
func (r *Repo) SplitSettings(ctx context.Context) (*SettingsSplit, error) {
	if _, err := os.Stat(r.LocalSettingsPath()); err == nil || !errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	shared, err := r.ReadFile(rcfg.FileName)
	if errors.Is(err, ErrNotFound) {
		shared = nil
	} else if err != nil {
		return nil, err
	}
	remote := len(r.gitCfg.Section("remote").Subsections) > 0
	newShared, local, moved, skipped, err := rcfg.Split(shared, !remote)
	if err != nil {
		return nil, nil
	}
	if err := r.WriteState(rcfg.LocalFileName, local); err != nil {
		return nil, fmt.Errorf("write %s: %w", r.LocalSettingsPath(), err)
	}
	res := &SettingsSplit{Moved: moved, Skipped: skipped, Remote: remote}
	if remote && len(skipped) > 0 {
		// the first command to open the memory is often one a hook started, whose output
		// no one reads: the list stays until a terminal (or doctor) has shown it
		if err := r.WriteState(removedFile, []byte(strings.Join(skipped, "\n")+"\n")); err != nil {
			return res, fmt.Errorf("write %s: %w", removedFile, err)
		}
	}
	if len(moved)+len(skipped) > 0 {
		msg := "settings: " + strings.Join(append(moved, skipped...), ", ") +
			" are local to each machine: moved to .git/reflect/config.toml"
		if remote {
			msg = "settings: " + strings.Join(skipped, ", ") +
				" are local to each machine: removed, for each machine to set in .git/reflect/config.toml"
		}
		if _, err := r.Commit(ctx, msg, map[string][]byte{rcfg.FileName: newShared}); err != nil {
			return res, fmt.Errorf("move local settings out of %s: %w", rcfg.FileName, err)
		}
	}
	r.reloadSettings()
	return res, nil
}

// removedFile lists, under the state directory, the local keys SplitSettings removed from the
// reflect.toml of a memory with a remote, until a person has been told.
const removedFile = "settings-removed"

// RemovedSettings are the local keys SplitSettings removed from reflect.toml and did not carry
// over (the memory has a remote), not yet shown to a person; clear removes the list.
func (r *Repo) RemovedSettings() (keys []string, clear func() error) {
	data, _ := r.ReadState(removedFile)
	clear = func() error {
		if err := os.Remove(r.stateFile(removedFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return strings.Fields(string(data)), clear
}

// SetLocalSetting writes this machine's settings file with data, after checking that it
// loads.
func (r *Repo) SetLocalSetting(data []byte) error {
	if _, _, err := rcfg.ParseLocal(r.LocalSettingsPath(), data); err != nil {
		return err
	}
	if err := r.WriteState(rcfg.LocalFileName, data); err != nil {
		return fmt.Errorf("write %s: %w", r.LocalSettingsPath(), err)
	}
	r.reloadSettings()
	return nil
}

// SetSetting sets one setting in the file its key belongs to: this machine's config.toml
// for a local key, reflect.toml (one commit, synced with the memory) for a shared one. The
// value is checked against the key before anything is written.
func (r *Repo) SetSetting(ctx context.Context, name, value string) (rcfg.Key, error) {
	k, err := rcfg.LookupKey(name)
	if err != nil {
		return k, err
	}
	lit, err := k.Literal(value)
	if err != nil {
		return k, err
	}
	if k.Scope == rcfg.Local {
		data, err := os.ReadFile(r.LocalSettingsPath())
		if errors.Is(err, os.ErrNotExist) {
			data, err = []byte(rcfg.DefaultLocalFile), nil
		}
		if err != nil {
			return k, err
		}
		if data, err = rcfg.Set(data, k, lit); err != nil {
			return k, err
		}
		return k, r.SetLocalSetting(data)
	}
	_, err = r.Update(ctx, func(tx *Tx) (string, error) {
		data, err := tx.Read(rcfg.FileName)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return "", err
		}
		if data, err = rcfg.Set(data, k, lit); err != nil {
			return "", err
		}
		if _, _, err := rcfg.ParseShared(rcfg.FileName, data); err != nil {
			return "", err
		}
		tx.Write(rcfg.FileName, data)
		return fmt.Sprintf("settings: %s = %s", k.Name, lit), nil
	})
	if err == nil {
		r.reloadSettings()
	}
	return k, err
}
