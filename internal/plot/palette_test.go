package plot

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"testing"

	"simrun/internal/result"
)

// twelveStages is a breakdown of twelve stages over three cases.
func twelveStages() *result.Document {
	d := result.New("stages")
	for c := 0; c < 3; c++ {
		b := result.Metrics{"sum": 0.0}
		for s := 0; s < 12; s++ {
			b[fmt.Sprintf("stage_%02d", s)] = 0.2 + 0.05*float64((s+c)%5)
		}
		d.Cases = append(d.Cases, result.Case{Name: fmt.Sprintf("case%d", c), Metrics: result.Metrics{"commit_breakdown_ms": b}})
	}
	return d
}

// count returns how many pixels of img left of (or right of, from) x have
// exactly colour c.
func count(img image.Image, c [3]uint8, fromX, toX int) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := max(b.Min.X, fromX); x < min(b.Max.X, toX); x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == c[0] && uint8(g>>8) == c[1] && uint8(bl>>8) == c[2] {
				n++
			}
		}
	}
	return n
}

// TestBreakdownColoursDistinctAndLegendOutside: twelve stages get twelve
// colours, each found both in the bars and in the legend swatches, and the
// legend stands right of the data, covering none of it.
func TestBreakdownColoursDistinctAndLegendOutside(t *testing.T) {
	f, img, legendX := renderPNG(t, twelveStages(), Breakdown)
	if legendX <= f.width/2 || legendX >= f.width-40 {
		t.Fatalf("legend column starts at x=%d px of %d: not beside the data", legendX, f.width)
	}
	for i := 0; i < 12; i++ {
		c := palette[i]
		rgb := [3]uint8{c.R, c.G, c.B}
		if n := count(img, rgb, 0, legendX); n < 200 {
			t.Errorf("stage %d colour %s: %d pixels in the data area, want a bar", i, Palette()[i], n)
		}
		if n := count(img, rgb, legendX, f.width); n < 20 {
			t.Errorf("stage %d colour %s: %d pixels in the legend, want a swatch", i, Palette()[i], n)
		}
	}
}

// TestPaletteDistinct: no two of the twelve series colours are closer than
// ΔE 20 in CIELAB, so no two stages look alike; past twelve, hatching
// tells series apart.
func TestPaletteDistinct(t *testing.T) {
	if len(palette) < 12 {
		t.Fatalf("palette has %d colours, want 12 (a breakdown has 12 stages)", len(palette))
	}
	for i := range palette {
		for j := i + 1; j < len(palette); j++ {
			if d := deltaE(lab(palette[i].R, palette[i].G, palette[i].B), lab(palette[j].R, palette[j].G, palette[j].B)); d < 20 {
				t.Errorf("colours %d %s and %d %s: ΔE %.1f", i, Palette()[i], j, Palette()[j], d)
			}
		}
	}
	if hatchAt(11) != 0 || hatchAt(12) == 0 || hatchAt(24) == hatchAt(12) {
		t.Errorf("hatches: %d %d %d", hatchAt(11), hatchAt(12), hatchAt(24))
	}
}

func lab(r, g, b uint8) [3]float64 {
	lin := func(u uint8) float64 {
		v := float64(u) / 255
		if v > 0.04045 {
			return math.Pow((v+0.055)/1.055, 2.4)
		}
		return v / 12.92
	}
	R, G, B := lin(r), lin(g), lin(b)
	x := (0.4124*R + 0.3576*G + 0.1805*B) / 0.95047
	y := 0.2126*R + 0.7152*G + 0.0722*B
	z := (0.0193*R + 0.1192*G + 0.9505*B) / 1.08883
	fn := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	return [3]float64{116*fn(y) - 16, 500 * (fn(x) - fn(y)), 200 * (fn(y) - fn(z))}
}

func deltaE(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

// TestLineColoursDistinctInLegend: a latency chart of twelve cases shows
// twelve line colours, each in its legend swatch beside the data and in
// the data area.
func TestLineColoursDistinctInLegend(t *testing.T) {
	d := result.New("lines")
	for c := 0; c < 12; c++ {
		lat := result.Metrics{}
		for i, k := range []string{"p50", "p90", "p99", "max"} {
			lat[k] = float64(1+c) * float64(1+i)
		}
		d.Cases = append(d.Cases, result.Case{Name: fmt.Sprintf("case%02d", c), Metrics: result.Metrics{"latency_ms": lat}})
	}
	f, img, legendX := renderPNG(t, d, Latency)
	for i := 0; i < 12; i++ {
		c := palette[i]
		rgb := [3]uint8{c.R, c.G, c.B}
		if n := count(img, rgb, legendX, f.width); n < 3 {
			t.Errorf("case %d colour %s: %d pixels in the legend", i, Palette()[i], n)
		}
		if n := count(img, rgb, 0, legendX); n < 10 {
			t.Errorf("case %d colour %s: %d pixels in the data", i, Palette()[i], n)
		}
	}
}

// renderPNG draws d as a PNG and decodes it; legendX is the pixel column
// where the legend column begins.
func renderPNG(t *testing.T, d *result.Document, k Kind) (*Figure, image.Image, int) {
	t.Helper()
	f, err := Draw(d, k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf, PNG); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return f, img, int(float64(f.legendX) * DPI / 72)
}
