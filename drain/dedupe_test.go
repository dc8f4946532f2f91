package drain

import "testing"

func TestSameLesson(t *testing.T) {
	const title = "Run database migrations with make migrate, not go run ./cmd/migrate"
	const body = "go run ./cmd/migrate skips the lock table; make migrate takes it."
	for _, tc := range []struct {
		title, body string
		same        bool
	}{
		{"run the database migrations with make migrate, not go run ./cmd/migrate", "", true},
		{title, "make migrate takes the lock table.", true},
		{"Run database migrations with `make migrate --dry-run`, not go run ./cmd/migrate", "", false}, // a flag it lacks
		{"Run database migrations with make migrate2, not go run ./cmd/migrate", "", false},            // another identifier
		{title, "Use port 5433 for the migration database.", false},                                    // a value it lacks
		{"Deploy the shop with the blue green script", "", false},                                      // another lesson
	} {
		if same, why := SameLesson(title, body, tc.title, tc.body); same != tc.same {
			t.Errorf("SameLesson(%q, %q) = %v (%s), want %v", tc.title, tc.body, same, why, tc.same)
		}
	}
}
