package export

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"simrun/internal/plot"
	"simrun/internal/plot/plottest"
	"simrun/internal/result"
)

var update = flag.Bool("update", false, "rewrite goldens under testdata/ and the tutorial notebooks in docs/tutorials")

// scenarioTOML stands for the scenario file a user exported from.
const scenarioTOML = `# A small scenario for the export tests.
seed = 42
duration = "20s"

[[case]]
name = "innodb/trx=1"
` + "```" + ` fences inside a scenario must not close the markdown block
`

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/export -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden (go test ./internal/export -update to accept); got:\n%s", path, got)
	}
}

func TestCSVGolden(t *testing.T) {
	for name, d := range map[string]*result.Document{"run": plottest.Run(), "sweep": plottest.Sweep()} {
		files, err := Export(d, CSV, "out/"+name+".csv", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 || files[0].Name != name+".csv" {
			t.Fatalf("files %v", names(files))
		}
		golden(t, name+".csv", files[0].Data)
	}
}

func TestCSVShape(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, plottest.Sweep()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if lines[0] != "case,workload.threads,metric,value,ci95" {
		t.Errorf("header %q", lines[0])
	}
	// 16 cases × 6 metrics (tps and five latency figures).
	if len(lines)-1 != 16*6 {
		t.Errorf("%d rows, want %d", len(lines)-1, 16*6)
	}
	if lines[1] != "file,1,tps,263.2,4.47" {
		t.Errorf("first row %q", lines[1])
	}
}

func names(files []File) []string {
	var s []string
	for _, f := range files {
		s = append(s, f.Name)
	}
	return s
}

func TestMarkdownGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  *result.Document
		opt  Options
	}{
		{"run", plottest.Run(), Options{Scenario: []byte(scenarioTOML), ScenarioFile: "some/dir/binlog.toml", Width: 480, Height: 300}},
		{"sweep", plottest.Sweep(), Options{Width: 480, Height: 300, Image: plot.SVG}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Export(tc.doc, Markdown, "page.md", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".md", files[0].Data)
			var want []string
			want = append(want, "page.md")
			ext := "png"
			if tc.opt.Image == plot.SVG {
				ext = "svg"
			}
			for _, k := range plot.Supported(tc.doc) {
				want = append(want, "page-"+string(k)+"."+ext)
			}
			if d := cmp.Diff(want, names(files)); d != "" {
				t.Errorf("files (-want +got):\n%s", d)
			}
			for _, f := range files[1:] {
				if !bytes.Contains(files[0].Data, []byte("("+f.Name+")")) {
					t.Errorf("page does not link %s", f.Name)
				}
				if ext == "png" {
					img, err := png.Decode(bytes.NewReader(f.Data))
					if err != nil {
						t.Fatalf("%s: %v", f.Name, err)
					}
					if s := img.Bounds().Size(); s.X != 480 || s.Y != 300 {
						t.Errorf("%s is %v, want 480x300", f.Name, s)
					}
				}
			}
		})
	}
}

// nb is the part of a notebook the tests read.
type nb struct {
	NBFormat      int `json:"nbformat"`
	NBFormatMinor int `json:"nbformat_minor"`
	Metadata      struct {
		KernelSpec map[string]string `json:"kernelspec"`
	} `json:"metadata"`
	Cells []struct {
		CellType string   `json:"cell_type"`
		ID       string   `json:"id"`
		Source   []string `json:"source"`
		Outputs  []struct {
			OutputType string         `json:"output_type"`
			Data       map[string]any `json:"data"`
		} `json:"outputs"`
	} `json:"cells"`
}

func TestNotebookStructure(t *testing.T) {
	for name, d := range map[string]*result.Document{"run": plottest.Run(), "sweep": plottest.Sweep()} {
		b1, err := NotebookBytes(d, Options{Scenario: []byte(scenarioTOML), ScenarioFile: "x.toml", Width: 400, Height: 250})
		if err != nil {
			t.Fatal(err)
		}
		b2, _ := NotebookBytes(d, Options{Scenario: []byte(scenarioTOML), ScenarioFile: "x.toml", Width: 400, Height: 250})
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s: two exports differ", name)
		}
		var n nb
		if err := json.Unmarshal(b1, &n); err != nil {
			t.Fatalf("%s: notebook is not JSON: %v", name, err)
		}
		if n.NBFormat != 4 || n.NBFormatMinor != 5 || n.Metadata.KernelSpec["name"] != "python3" {
			t.Errorf("%s: nbformat %d.%d kernel %v", name, n.NBFormat, n.NBFormatMinor, n.Metadata.KernelSpec)
		}
		ids := map[string]bool{}
		pngs := 0
		for _, c := range n.Cells {
			if ids[c.ID] || !regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`).MatchString(c.ID) {
				t.Errorf("%s: bad or duplicate cell id %q", name, c.ID)
			}
			ids[c.ID] = true
			for _, o := range c.Outputs {
				s, _ := o.Data["image/png"].(string)
				raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
				if err != nil {
					t.Fatalf("%s: cell %s: %v", name, c.ID, err)
				}
				img, err := png.Decode(bytes.NewReader(raw))
				if err != nil {
					t.Fatalf("%s: cell %s: %v", name, c.ID, err)
				}
				if c.ID != "chart-series" && img.Bounds().Dx() != 400 {
					t.Errorf("%s: cell %s: PNG width %d", name, c.ID, img.Bounds().Dx())
				}
				pngs++
			}
		}
		if want := len(plot.Supported(d)); pngs != want {
			t.Errorf("%s: %d rendered charts, want %d", name, pngs, want)
		}
		if !strings.Contains(string(b1), "````toml") {
			t.Errorf("%s: the scenario's own ``` must lengthen the fence", name)
		}
	}
}

// TestNoLeaks exports a document whose names carry paths and checks that
// no directory, host name or timestamp reaches any file.
func TestNoLeaks(t *testing.T) {
	d := plottest.Run()
	d.Scenario = "/home/alice/projects/scenarios/binlog.toml"
	host, _ := os.Hostname()
	wd, _ := os.Getwd()
	opt := Options{Scenario: []byte("seed = 1\n"), ScenarioFile: "/home/alice/projects/scenarios/binlog.toml", Width: 320, Height: 200}
	stamp := regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}`)
	for _, f := range Formats() {
		files, err := Export(d, f, "/tmp/out/export."+string(f), opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.Contains(file.Name, "/") {
				t.Errorf("%s: file name %q has a directory", f, file.Name)
			}
			s := string(file.Data)
			for _, bad := range []string{"/home/alice", "/tmp/out", wd, os.TempDir() + "/"} {
				if strings.Contains(s, bad) {
					t.Errorf("%s: %s leaks %q", f, file.Name, bad)
				}
			}
			if host != "" && len(host) > 3 && strings.Contains(s, host) {
				t.Errorf("%s: %s leaks the host name", f, file.Name)
			}
			if stamp.MatchString(s) {
				t.Errorf("%s: %s holds a timestamp %q", f, file.Name, stamp.FindString(s))
			}
		}
	}
}

// TestNotebookReadsDataBeside: the notebook reads its result from a file
// written beside it, named in a parameter cell, instead of carrying the
// result as a literal; the style literal survives quotes in names.
func TestNotebookReadsDataBeside(t *testing.T) {
	d := plottest.Run()
	d.Description = "it's got ''' and a backslash \\ in it"
	files, err := Export(d, Notebook, "out/page.ipynb", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[1].Name != "page.result.json" {
		t.Fatalf("files %v", names(files))
	}
	back, err := result.Decode(bytes.NewReader(files[1].Data))
	if err != nil || back.Description != d.Description || len(back.Cases) != len(d.Cases) {
		t.Fatalf("data file: %v %+v", err, back)
	}
	var n struct {
		Cells []struct {
			ID       string         `json:"id"`
			Metadata map[string]any `json:"metadata"`
			Source   []string       `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(files[0].Data, &n); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range n.Cells {
		src := strings.Join(c.Source, "")
		if c.ID == "parameters" {
			found = strings.Contains(src, `RESULT_FILE = "page.result.json"`) && strings.Contains(src, "CASE_NAMES = None") &&
				fmt.Sprint(c.Metadata["tags"]) == "[parameters]"
		}
		if strings.Contains(src, `"metrics":`) || len(src) > 40000 {
			t.Errorf("cell %s carries the result (%d bytes)", c.ID, len(src))
		}
		if c.ID == "data" && strings.Count(src, "'''") != 2 {
			t.Errorf("data cell: the style literal is not one raw string")
		}
	}
	if !found {
		t.Errorf("no parameter cell naming the data file")
	}
}

func TestErrors(t *testing.T) {
	if _, err := ParseFormat("pdf"); err == nil || !strings.Contains(err.Error(), "allowed: ipynb, md, csv") {
		t.Errorf("ParseFormat: %v", err)
	}
	_, err := Export(plottest.Sweep(), Notebook, "x.ipynb", Options{Kinds: []plot.Kind{plot.Breakdown}})
	if err == nil || !strings.Contains(err.Error(), `no case has metric "commit_breakdown_ms"`) {
		t.Errorf("missing metric: %v", err)
	}
}

func TestDropTitle(t *testing.T) {
	for in, want := range map[string]string{
		"# T\n\nbody\n": "body\n",
		"body":          "body",
		"\n# T":         "",
	} {
		if got := dropTitle(in); got != want {
			t.Errorf("dropTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSweepValuesReadable: the page's results table shows a swept value in
// its key's unit (40MB/s) or as TOML text, while the CSV export keeps the
// number as the result reports it.
func TestSweepValuesReadable(t *testing.T) {
	exp := map[string]any{"dist": "exponential", "mean": "1ms"}
	for _, tc := range []struct {
		name    string
		axis    result.Axis
		at      any
		wantRow string // in the markdown table
		wantCSV string // a row of the CSV export
	}{
		{"rate", result.Axis{Key: "volume.bandwidth_max", Unit: "bytes/s"}, int64(40000000), "| Case2 | 40MB/s | 1528 |", "Case2,40000000,tps,1528,"},
		{"duration", result.Axis{Key: "engine.redo.flush_interval", Unit: "s"}, 0.0015, "| Case2 | 1.5ms | 1528 |", "Case2,0.0015,tps,1528,"},
		{"plain number", result.Axis{Key: "workload.threads"}, int64(16), "| Case2 | 16 | 1528 |", "Case2,16,tps,1528,"},
		{"inline table", result.Axis{Key: "workload.demo.service"}, exp, `| Case2 | { dist = "exponential", mean = "1ms" } | 1528 |`, `Case2,"{ dist = ""exponential"", mean = ""1ms"" }",tps,1528,`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := result.New("s")
			tc.axis.Values = []any{tc.at}
			d.Sweep = []result.Axis{tc.axis}
			d.Cases = []result.Case{{Name: "Case2", Point: map[string]any{tc.axis.Key: tc.at}, Metrics: result.Metrics{"tps": int64(1528)}}}
			if md := resultsTable(d); !strings.Contains(md, tc.wantRow) {
				t.Errorf("no %q in:\n%s", tc.wantRow, md)
			}
			var buf bytes.Buffer
			if err := WriteCSV(&buf, d); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]string{tc.wantCSV}, strings.Split(strings.TrimSpace(buf.String()), "\n")[1:]); d != "" {
				t.Errorf("CSV rows (-want +got):\n%s", d)
			}
		})
	}
}
