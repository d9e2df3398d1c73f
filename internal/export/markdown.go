package export

import (
	"fmt"
	"strings"

	"simrun/internal/plot"
	"simrun/internal/result"
)

// MarkdownFiles renders d as a docs page named stem+".md" and its charts
// as stem+"-KIND.png" (or .svg) beside it; the page comes first.
func MarkdownFiles(d *result.Document, stem string, opt Options) ([]File, error) {
	d = clean(d)
	stem = fileBase(stem)
	if stem == "" {
		stem = d.Scenario
	}
	img := opt.Image
	if img == "" {
		img = plot.PNG
	}
	if img != plot.PNG && img != plot.SVG {
		return nil, fmt.Errorf("export: image format %q (allowed: png, svg)", img)
	}
	var b strings.Builder
	b.WriteString(intro(d, opt))
	b.WriteString("\n")
	b.WriteString(scenarioSection(opt))
	b.WriteString("\n## Results\n\n")
	b.WriteString(resultsTable(d))
	files := []File{{Name: stem + ".md"}}
	kinds := charts(d, opt)
	if len(kinds) > 0 {
		b.WriteString("\n## Charts\n")
	}
	for _, k := range kinds {
		data, err := chart(d, k, img, opt)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("%s-%s.%s", stem, k, img)
		files = append(files, File{Name: name, Data: data})
		fmt.Fprintf(&b, "\n### %s\n\n![%s](%s)\n\n%s\n", captions[k], captions[k], name, explanations[k])
	}
	files[0].Data = []byte(b.String())
	return files, nil
}
