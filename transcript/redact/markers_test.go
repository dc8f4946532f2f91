package redact

import "testing"

// A marker is a placeholder only when nothing is glued to its end: a secret pasted after a
// marker that stands as a value (after '=' or ':') is the rest of that value.
var gluedMarkerShapes = []positive{
	{"password glued to a marker", "password=[REDACTED:x]q8ZrT2vLm9",
		"password=[REDACTED:x]", []string{"q8ZrT2vLm9"}},
	{"env var glued to a marker", "export FOO_TOKEN=[REDACTED:token]q8ZrT2vLm9Kd && make",
		"export FOO_TOKEN=[REDACTED:token] && make", []string{"q8ZrT2vLm9Kd"}},
	{"url password glued to a marker", "postgres://admin:[REDACTED:url-password]pass@db.internal:5432/shop",
		"postgres://admin:[REDACTED:url-password]@db.internal:5432/shop", []string{"pass@"}},
	{"yaml value glued to a marker", "api_key: [REDACTED:api-key]\ntoken:[REDACTED:token]Zm9vYmFyYmF6cXV4\n",
		"api_key: [REDACTED:api-key]\ntoken:[REDACTED:token]\n", []string{"Zm9vYmFyYmF6cXV4"}},
	{"a marker with half a token after it", `{"key":"x","secret":"ab","auth=[REDACTED:secret]1234567890abcdefghij"}`,
		`{"key":"x","secret":"ab","auth=[REDACTED:secret]"}`, []string{"1234567890abcdefghij"}},
}

var markerLookalikes = []string{
	"password=[REDACTED:password] and then",
	"password=[REDACTED:password].",
	"https://deploy:[REDACTED:url-password]@pypi.acme.dev/simple/",
	"token=[REDACTED:token];path=/",
	"see [REDACTED:github-token]s in the log",
	"[REDACTED:private-key]req.Header.Set(\"x\", y)",
	"ids=[1]abc", // not a marker
	"the list [REDACTED] is empty",
	"x = [REDACTED:secret]\n",
}

func TestRedactsTextGluedToMarkers(t *testing.T) { redactsTo(t, gluedMarkerShapes) }

func TestKeepsMarkersWithNothingGlued(t *testing.T) { survives(t, markerLookalikes) }
