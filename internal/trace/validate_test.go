package trace

import (
	"strings"
	"testing"
)

// TestRecordingPassesValidate: what the Recorder writes obeys Perfetto's
// rules; flows in particular bind by (cat, name, id) on both ends.
func TestRecordingPassesValidate(t *testing.T) {
	if err := Validate(encode(t, record())); err != nil {
		t.Error(err)
	}
}

// TestValidateRejects: each rule catches the trace that breaks it.
func TestValidateRejects(t *testing.T) {
	const meta = `{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"a"}}`
	tests := []struct {
		name, events, want string
	}{
		{"no ph", `{"name":"a","ts":0,"pid":1,"tid":1}`, "no ph"},
		{"no ts", `{"name":"a","ph":"X","dur":1,"pid":1,"tid":1}`, "no numeric ts"},
		{"no pid", `{"name":"a","ph":"X","ts":0,"dur":1,"tid":1}`, "pid and tid"},
		{"negative dur", `{"name":"a","ph":"X","ts":0,"dur":-1,"pid":1,"tid":1}`, "dur >= 0"},
		{"unbalanced B", `{"name":"a","ph":"B","ts":0,"pid":1,"tid":1}`, "never ends"},
		{"E without B", `{"name":"a","ph":"E","ts":0,"pid":1,"tid":1}`, "E without an open B"},
		{"E closes wrong B", `{"name":"a","ph":"B","ts":0,"pid":1,"tid":1},{"name":"b","ph":"B","ts":1,"pid":1,"tid":1},{"name":"a","ph":"E","ts":2,"pid":1,"tid":1},{"name":"b","ph":"E","ts":3,"pid":1,"tid":1}`, "innermost open B"},
		{"overlap", `{"name":"a","ph":"X","ts":0,"dur":10,"pid":1,"tid":1},{"name":"b","ph":"X","ts":5,"dur":10,"pid":1,"tid":1}`, "without nesting"},
		{"flow cats differ", `{"name":"a","ph":"X","ts":0,"dur":10,"pid":1,"tid":1},{"name":"b","ph":"X","ts":0,"dur":10,"pid":2,"tid":2},` +
			`{"name":"d","cat":"client","ph":"s","id":1,"ts":1,"pid":1,"tid":1},{"name":"d","cat":"commit","ph":"f","bp":"e","id":1,"ts":2,"pid":2,"tid":2}`, "s without an f of the same cat"},
		{"flow unbound", `{"name":"d","cat":"flow","ph":"s","id":1,"ts":1,"pid":1,"tid":1},{"name":"a","ph":"X","ts":0,"dur":10,"pid":2,"tid":2},{"name":"d","cat":"flow","ph":"f","bp":"e","id":1,"ts":2,"pid":2,"tid":2}`, "no slice to bind to"},
		{"flow without id", `{"name":"d","cat":"flow","ph":"s","ts":1,"pid":1,"tid":1}`, "needs id and cat"},
		{"bad instant scope", `{"name":"i","ph":"i","s":"x","ts":1,"pid":1,"tid":1}`, "instant scope"},
		{"counter text", `{"name":"q","ph":"C","ts":1,"pid":1,"tid":1,"args":{"value":"3"}}`, "not a number"},
	}
	for _, tt := range tests {
		err := Validate([]byte(`{"traceEvents":[` + meta + "," + tt.events + `]}`))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate = %v, want %q", tt.name, err, tt.want)
		}
	}
	ok := `{"traceEvents":[` + meta + `,{"name":"a","ph":"B","ts":0,"pid":1,"tid":1},{"name":"b","ph":"X","ts":1,"dur":2,"pid":1,"tid":1},{"name":"a","ph":"E","ts":5,"pid":1,"tid":1}]}`
	if err := Validate([]byte(ok)); err != nil {
		t.Errorf("nested B/E and X: %v", err)
	}
}
