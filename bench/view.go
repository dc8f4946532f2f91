package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/view"
	"github.com/reflect-memory/reflect/workspace"
)

// rememberRoot records where the project at dir is checked out, as a recall in it does.
func rememberRoot(home, dir string) error {
	r, err := gitstore.Open(home)
	if err != nil {
		return err
	}
	defer r.Close()
	ws, err := workspace.Read(dir, 0)
	if err != nil {
		return err
	}
	return anchor.Remember(r, ws)
}

// runView measures what issue 24 promises: the server time of reflect view's list page at n
// learnings — the first request after start (every learning parsed), the next ones (the
// parsed learnings cached by blob), a filtered page, the freshness filter (half the
// learnings anchored, one project's work tree known) and a search — beside `reflect list
// --format json` of the same memory, whole process, in the same run.
func runView(n, runs int) error {
	tmp, bin, env, err := setup("view-")
	defer os.RemoveAll(tmp)
	if err != nil {
		return err
	}
	home := filepath.Join(tmp, fmt.Sprintf("mem-%d", n))
	if err := memory(env, bin, home, n, max(1, min(n/10, 1000)), 20); err != nil {
		return err
	}
	// half the learnings anchored (those of project 3 to its work tree, which this machine
	// knows: a tenth of them drifted, a twelfth orphaned; the others' projects unknown here)
	proj, err := fixtures.BuildAnchoredProject(context.Background(), filepath.Join(tmp, "proj"), fixtures.SynthProject(3))
	if err != nil {
		return err
	}
	if _, err := fixtures.AnchorHalf(context.Background(), home, proj); err != nil {
		return err
	}
	if err := rememberRoot(home, proj.Dir); err != nil {
		return err
	}
	if err := reindex(env, bin, home); err != nil {
		return err
	}
	var list, listCPU []float64
	for i := 0; i < runs+1; i++ {
		start := time.Now()
		c := command(env, ".", bin, "--home", home, "list", "--format", "json")
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("reflect list: %v: %.300s", err, out)
		}
		if i > 0 {
			list = append(list, ms(time.Since(start)))
			listCPU = append(listCPU, ms(c.ProcessState.UserTime()+c.ProcessState.SystemTime()))
		}
	}
	var lastCPU float64
	cpu := map[*[]float64][]float64{} // CPU time of each request, beside its wall time
	get := func(s *view.Server, cookies []*http.Cookie, path string) (float64, []*http.Cookie, error) {
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:1"+path, nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		w := httptest.NewRecorder()
		start, c0 := time.Now(), selfCPU()
		s.ServeHTTP(w, req)
		d := ms(time.Since(start))
		lastCPU = ms(selfCPU() - c0)
		if w.Code != http.StatusOK && w.Code != http.StatusSeeOther {
			return 0, nil, fmt.Errorf("GET %s: %d %.300s", path, w.Code, w.Body.String())
		}
		return d, w.Result().Cookies(), nil
	}
	var first, cold, warm, filtered, drifted, search []float64
	record := func(into *[]float64, d float64) {
		*into = append(*into, d)
		cpu[into] = append(cpu[into], lastCPU)
	}
	project := fixtures.SynthProject(3)
	// the first start parses every learning; Close keeps them parsed for the next start
	for i := 0; i < 1+max(3, runs/4); i++ {
		s, err := view.New(view.Options{Home: home})
		if err != nil {
			return err
		}
		_, cookies, err := get(s, nil, "/?token="+s.Token())
		if err != nil {
			s.Close()
			return err
		}
		d, _, err := get(s, cookies, "/")
		if err != nil {
			s.Close()
			return err
		}
		if i == 0 {
			record(&first, d)
		} else {
			record(&cold, d)
		}
		if i == 0 {
			for j := 0; j < runs; j++ {
				for _, m := range []struct {
					path string
					into *[]float64
				}{{"/", &warm}, {"/?project=" + project + "&kind=rule&sort=seen", &filtered},
					{"/?fresh=drifted", &drifted}, {"/?q=deadlock+retry", &search}} {
					d, _, err := get(s, cookies, m.path)
					if err != nil {
						s.Close()
						return err
					}
					record(m.into, d)
				}
			}
		}
		s.Close()
	}
	base := pct(list, 50)
	fmt.Printf("reflect view at %d learnings: server time of a page, median (p90) of %d runs (the first\n", n, runs)
	fmt.Printf("request after a restart: %d runs), beside reflect list --format json of the same memory,\n", len(cold))
	fmt.Printf("whole process, in the same run; CPU is the process's user+system time during the request\n\n")
	fmt.Printf("  %-40s %9s %9s %9s %9s\n", "", "median", "p90", "CPU", "vs list")
	cpu[&list] = listCPU
	rowOf := func(name string, xs *[]float64) {
		c := fmt.Sprintf("%.1fms", pct(cpu[xs], 50))
		fmt.Printf("  %-40s %7.1fms %7.1fms %9s %8.2fx\n", name, pct(*xs, 50), pct(*xs, 90), c, pct(*xs, 50)/base)
	}
	rowOf("reflect list --format json (baseline)", &list)
	rowOf("list page, first request of a first run", &first)
	rowOf("list page, first request after a restart", &cold)
	rowOf("list page (learnings cached)", &warm)
	rowOf("list page, project+kind filter, by seen", &filtered)
	rowOf("list page, drifted filter", &drifted)
	rowOf("search page (deadlock retry)", &search)
	return nil
}
