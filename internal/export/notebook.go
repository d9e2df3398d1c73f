package export

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"simrun/internal/plot"
	"simrun/internal/result"
)

// The notebook format written: nbformat 4.5 (cells carry ids).
const (
	nbFormat      = 4
	nbFormatMinor = 5
)

type notebook struct {
	Cells         []any      `json:"cells"`
	Metadata      nbMetadata `json:"metadata"`
	NBFormat      int        `json:"nbformat"`
	NBFormatMinor int        `json:"nbformat_minor"`
}

// nbMetadata names the kernel so `jupyter nbconvert --execute` knows what
// to start, and nothing else: no versions, no timestamps.
type nbMetadata struct {
	KernelSpec   kernelSpec   `json:"kernelspec"`
	LanguageInfo languageInfo `json:"language_info"`
}

type kernelSpec struct {
	DisplayName string `json:"display_name"`
	Language    string `json:"language"`
	Name        string `json:"name"`
}

type languageInfo struct {
	Name string `json:"name"`
}

type markdownCell struct {
	CellType string         `json:"cell_type"`
	ID       string         `json:"id"`
	Metadata map[string]any `json:"metadata"`
	Source   []string       `json:"source"`
}

type codeCell struct {
	CellType       string         `json:"cell_type"`
	ExecutionCount *int           `json:"execution_count"`
	ID             string         `json:"id"`
	Metadata       map[string]any `json:"metadata"`
	Outputs        []displayData  `json:"outputs"`
	Source         []string       `json:"source"`
}

type displayData struct {
	Data       map[string]any `json:"data"`
	Metadata   map[string]any `json:"metadata"`
	OutputType string         `json:"output_type"`
}

// lines splits text the way notebooks store it: every line keeps its
// newline except the last.
func lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	parts := strings.SplitAfter(s, "\n")
	if len(parts) == 1 && parts[0] == "" {
		return []string{}
	}
	return parts
}

func md(id, text string) markdownCell {
	return markdownCell{CellType: "markdown", ID: id, Metadata: map[string]any{}, Source: lines(text)}
}

func code(id, src string, outputs ...displayData) codeCell {
	if outputs == nil {
		outputs = []displayData{}
	}
	return codeCell{CellType: "code", ID: id, Metadata: map[string]any{}, Outputs: outputs, Source: lines(src)}
}

// NotebookBytes renders d as a Jupyter notebook.
func NotebookBytes(d *result.Document, opt Options) ([]byte, error) {
	d = clean(d)
	dataFile := opt.DataFile
	if dataFile == "" {
		dataFile = "result.json"
	}
	params := code("parameters", paramsCell(d, dataFile))
	params.Metadata = map[string]any{"tags": []string{"parameters"}}
	cells := []any{
		md("intro", intro(d, opt)+"\nThe charts below were drawn by simrun when the notebook was exported, so they read without running anything; run the notebook (Python with pandas and matplotlib) to redraw them from the data and explore it."),
		md("scenario", scenarioSection(opt)),
		md("results", "## Results\n\n"+resultsTable(d)),
		md("parameters-text", fmt.Sprintf("## Parameters\n\nThe result is read from `%s`, beside this notebook. Change the cell below (another result file, fewer cases, another metric) and run all cells again: every chart is redrawn from it.", dataFile)),
		params,
		md("data-text", "## The data\n\nThe result document as simrun wrote it, loaded into pandas: `df` has one row per case (per sweep point) and one column per metric, `tidy` one row per case × metric. `lookup(case[\"metrics\"], \"latency_ms.p99\")` reads any metric, series included. `STYLE` is how simrun draws (colours, stage order, axis labels): the charts below follow it, as simrun's own do."),
		code("data", dataCell(d)),
	}
	for _, k := range charts(d, opt) {
		png, err := chart(d, k, plot.PNG, opt)
		if err != nil {
			return nil, err
		}
		f, err := plot.Draw(d, k, plot.Options{Width: opt.Width, Height: opt.Height})
		if err != nil {
			return nil, err
		}
		w, h := f.Size()
		src, err := chartCell(k)
		if err != nil {
			return nil, err
		}
		out := displayData{
			OutputType: "display_data",
			Data: map[string]any{
				"image/png":  base64.StdEncoding.EncodeToString(png) + "\n",
				"text/plain": []string{fmt.Sprintf("<simrun chart %s, %dx%d px>", k, w, h)},
			},
			Metadata: map[string]any{},
		}
		cells = append(cells,
			md("chart-"+string(k)+"-text", fmt.Sprintf("## %s\n\n%s", captions[k], explanations[k])),
			code("chart-"+string(k), src, out))
	}
	nb := notebook{
		Cells: cells,
		Metadata: nbMetadata{
			KernelSpec:   kernelSpec{DisplayName: "Python 3 (ipykernel)", Language: "python", Name: "python3"},
			LanguageInfo: languageInfo{Name: "python"},
		},
		NBFormat:      nbFormat,
		NBFormatMinor: nbFormatMinor,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(nb); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return buf.Bytes(), nil
}
