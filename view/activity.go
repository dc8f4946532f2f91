package view

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/drain"
	"github.com/reflect-memory/reflect/gitstore"
)

// activityWeeks is how far back the charts go; activityWalk bounds the commits read.
const (
	activityWeeks = 12
	activityWalk  = 5000
)

// bar is one bar of a chart, in the SVG's coordinates.
type bar struct {
	X, Y, W, H     int
	Label, Value   string
	Tip            string // the bar's tooltip
	LX, LY, VX, VY int    // where the label and the value are written
	Class          string
}

type chart struct {
	Title, Note   string
	Width, Height int
	Horizontal    bool
	Bars          []bar
	Legend        []bar
}

type activityData struct {
	Charts []chart
	Note   string
}

type week struct {
	start                          time.Time
	created, captures, drained, ok int
}

func weekOf(t time.Time) time.Time {
	t = t.UTC().Truncate(24 * time.Hour)
	return t.AddDate(0, 0, -int((t.Weekday()+6)%7)) // Monday
}

func (s *Server) activity(w http.ResponseWriter, r *http.Request) {
	var d activityData
	err := s.withRepo(func(repo *gitstore.Repo) error {
		if err := s.cache.load(repo); err != nil {
			return err
		}
		now := s.o.Now()
		first := weekOf(now).AddDate(0, 0, -7*(activityWeeks-1))
		weeks := make([]week, activityWeeks)
		for i := range weeks {
			weeks[i].start = first.AddDate(0, 0, 7*i)
		}
		at := func(t time.Time) *week {
			i := int(weekOf(t).Sub(first).Hours() / (24 * 7))
			if i < 0 || i >= len(weeks) {
				return nil
			}
			return &weeks[i]
		}
		projects := map[string]int{}
		for _, l := range s.cache.all {
			if wk := at(l.Created); wk != nil {
				wk.created++
			}
			if l.Status == "current" {
				projects[l.Project]++
			}
		}
		head, err := repo.Head()
		if err != nil {
			return err
		}
		log, err := repo.Log(head, activityWalk)
		if err != nil {
			return err
		}
		if len(log) == activityWalk {
			d.Note = fmt.Sprintf("Captures and drains are counted in the last %d commits.", activityWalk)
		}
		for _, c := range log {
			wk := at(c.When)
			if wk == nil {
				continue
			}
			switch {
			case strings.HasPrefix(c.Subject, "capture("):
				wk.captures++
			case drain.IsDrainCommit(c.Subject):
				wk.drained++
				wk.ok += drain.DrainedLearnings(c.Subject)
			}
		}
		labels := make([]string, len(weeks))
		created := make([]int, len(weeks))
		captures := make([]int, len(weeks))
		learned := make([]int, len(weeks))
		drained := make([]int, len(weeks))
		for i, wk := range weeks {
			labels[i] = wk.start.Format("Jan 2")
			created[i], captures[i], learned[i], drained[i] = wk.created, wk.captures, wk.ok, wk.drained
		}
		d.Charts = append(d.Charts,
			columns("Learnings per week", "by their created date", labels, [][]int{created}, []string{"learnings"}),
			columns("Captures and learnings per week", "captures committed by the hooks beside the learnings the drain made of them", labels,
				[][]int{captures, learned}, []string{"captures", "learnings drained"}),
			yieldChart(labels, drained, learned),
			projectsChart(projects))
		return nil
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "activity", page{Title: "Activity", Nav: "activity", Data: d})
}

// columns draws grouped vertical bars: one group per label, one bar per series.
func columns(title, note string, labels []string, series [][]int, names []string) chart {
	const width, height, top, bottom, left = 720, 220, 20, 40, 30
	c := chart{Title: title, Note: note, Width: width, Height: height}
	most := 1
	for _, s := range series {
		for _, v := range s {
			most = max(most, v)
		}
	}
	group := (width - left) / max(len(labels), 1)
	bw := max((group-8)/max(len(series), 1), 2)
	plot := height - top - bottom
	for i, label := range labels {
		x0 := left + i*group
		for k, s := range series {
			h := s[i] * plot / most
			b := bar{X: x0 + k*bw, Y: top + plot - h, W: bw - 1, H: h, Value: strconv.Itoa(s[i]), Class: fmt.Sprintf("s%d", k),
				Tip: fmt.Sprintf("%s, week of %s: %d", names[k], label, s[i])}
			b.VX, b.VY = b.X+b.W/2, b.Y-4
			c.Bars = append(c.Bars, b)
		}
		c.Bars[len(c.Bars)-len(series)].Label = label
		c.Bars[len(c.Bars)-len(series)].LX = x0 + group/2 - 4
		c.Bars[len(c.Bars)-len(series)].LY = height - bottom + 16
	}
	for k, n := range names {
		c.Legend = append(c.Legend, bar{X: left + k*170, Y: height - 14, W: 10, H: 10, Label: n, LX: left + k*170 + 14, LY: height - 5, Class: fmt.Sprintf("s%d", k)})
	}
	return c
}

// yieldChart is the drain's yield: learnings made per 100 captures drained, per week.
func yieldChart(labels []string, drained, learned []int) chart {
	pct := make([]int, len(labels))
	for i := range labels {
		if drained[i] > 0 {
			pct[i] = 100 * learned[i] / drained[i]
		}
	}
	c := columns("Drain yield", "learnings made per 100 captures drained, per week", labels, [][]int{pct}, []string{"learnings per 100 captures"})
	for i := range c.Bars {
		if drained[i] == 0 {
			c.Bars[i].Value = "–"
		} else {
			c.Bars[i].Tip += fmt.Sprintf(" (%d learnings from %d captures)", learned[i], drained[i])
		}
	}
	return c
}

// projectsChart draws the projects with the most current learnings as horizontal bars.
func projectsChart(projects map[string]int) chart {
	type pc struct {
		name string
		n    int
	}
	var ps []pc
	for p, n := range projects {
		ps = append(ps, pc{p, n})
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].n != ps[j].n {
			return ps[i].n > ps[j].n
		}
		return ps[i].name < ps[j].name
	})
	note := "current learnings"
	if len(ps) > 12 {
		note = fmt.Sprintf("current learnings, the 12 largest of %d projects", len(ps))
		ps = ps[:12]
	}
	const width, row, left = 720, 22, 300
	c := chart{Title: "Learnings per project", Note: note, Horizontal: true, Width: width, Height: max(len(ps)*row+10, 30)}
	most := 1
	for _, p := range ps {
		most = max(most, p.n)
	}
	for i, p := range ps {
		w := p.n * (width - left - 60) / most
		label := p.name
		if r := []rune(label); len(r) > 40 {
			label = "…" + string(r[len(r)-39:])
		}
		c.Bars = append(c.Bars, bar{X: left, Y: 5 + i*row, W: max(w, 1), H: row - 6, Label: label, Value: strconv.Itoa(p.n),
			LX: left - 6, LY: 5 + i*row + row/2 + 4, VX: left + w + 6, VY: 5 + i*row + row/2 + 4, Class: "s0",
			Tip: fmt.Sprintf("%s: %d current learnings", p.name, p.n)})
	}
	return c
}
