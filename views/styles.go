package views

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// Styles holds every style of the explorer. All colours live here, as
// adaptive light/dark pairs, so that views and the root program never
// name a colour. Styles are made by one lipgloss renderer, whose colour
// profile decides what reaches the terminal (none under NO_COLOR).
type Styles struct {
	Renderer *lipgloss.Renderer
	// NoColor is set when the output shows no styling at all (NO_COLOR,
	// not a terminal): marks in the text stand in for it.
	NoColor bool

	TabActive, TabInactive, TabGap lipgloss.Style

	Plain    lipgloss.Style // no decoration
	Header   lipgloss.Style // column headings
	Selected lipgloss.Style // the cursor row
	Match    lipgloss.Style // search matches
	Dim      lipgloss.Style // secondary text: tree guides, inline markers
	Key      lipgloss.Style // a label key in the Labels view
	Bar      lipgloss.Style // share bars

	Status      lipgloss.Style // the status bar
	StatusLabel lipgloss.Style // its source and sample type
	Crumb       lipgloss.Style // an active filter
	Error       lipgloss.Style
	Info        lipgloss.Style
	Prompt      lipgloss.Style // ":" and "/" before the input

	HelpKey, HelpDesc, HelpSep, HelpTitle lipgloss.Style

	// The flame graph's frames that are not a package's (see Flame):
	// the root, the zoomed frame's ancestors, and runs of frames too
	// narrow to draw; and the cursor's frame and search matches, which
	// must stand out from every package colour.
	FlameRoot, FlameAncestor, FlameNarrow, FlameCursor, FlameMatch lipgloss.Style
	// FlameSame is a differential flame graph's frame that did not change.
	FlameSame lipgloss.Style

	// heat colours percentages: hottest first (see Heat).
	heat [5]lipgloss.Style
	// growth and shrink colour diff values by sign, strongest first, as
	// text (…Text) and as boxes (…Box); see DiffText and DiffBox.
	growText, shrinkText, growBox, shrinkBox [diffLevels]lipgloss.Style
	// flame colours flame graph frames by package (see Flame).
	flame [len(colFlame)]lipgloss.Style
}

// diffLevels is the number of intensities a diff colour has; diffLevel
// picks one by the change's share of the total.
const diffLevels = 4

func diffLevel(delta, total int64) int {
	p := pct(delta, total)
	switch {
	case p >= 10:
		return 0
	case p >= 2:
		return 1
	case p >= 0.5:
		return 2
	}
	return 3
}

// Colour pairs: Light is used on light backgrounds, Dark on dark ones.
var (
	colAccent   = lipgloss.AdaptiveColor{Light: "#5A3FC0", Dark: "#B4A0FF"}
	colTabBg    = lipgloss.AdaptiveColor{Light: "#E4DFF7", Dark: "#3A3258"}
	colMuted    = lipgloss.AdaptiveColor{Light: "#6B6B6B", Dark: "#8A8A8A"}
	colSelectBg = lipgloss.AdaptiveColor{Light: "#D7E3FF", Dark: "#2E3E62"}
	colSelectFg = lipgloss.AdaptiveColor{Light: "#000000", Dark: "#FFFFFF"}
	colMatchBg  = lipgloss.AdaptiveColor{Light: "#FFE27A", Dark: "#8A6D00"}
	colMatchFg  = lipgloss.AdaptiveColor{Light: "#000000", Dark: "#FFFFFF"}
	colStatusBg = lipgloss.AdaptiveColor{Light: "#ECECEC", Dark: "#262626"}
	colStatusFg = lipgloss.AdaptiveColor{Light: "#303030", Dark: "#D0D0D0"}
	colCrumb    = lipgloss.AdaptiveColor{Light: "#0B6E4F", Dark: "#7FD6B4"}
	colError    = lipgloss.AdaptiveColor{Light: "#B00020", Dark: "#FF6B6B"}
	colHeat     = [5]lipgloss.AdaptiveColor{
		{Light: "#C00000", Dark: "#FF5F5F"}, // ≥ 50%
		{Light: "#C05800", Dark: "#FF9F43"}, // ≥ 20%
		{Light: "#8A7000", Dark: "#F4D35E"}, // ≥ 5%
		{Light: "#303030", Dark: "#D0D0D0"}, // ≥ 1%
		{Light: "#8A8A8A", Dark: "#707070"}, // < 1%
	}
	// Diffs: red for growth, green for shrinkage (pprof's colours),
	// strongest first. Boxes carry colDiffBoxFg text.
	colGrow = [diffLevels]lipgloss.AdaptiveColor{
		{Light: "#B00000", Dark: "#FF4D4D"},
		{Light: "#D03A2A", Dark: "#E8736A"},
		{Light: "#D9756B", Dark: "#B86A63"},
		{Light: "#E0A8A2", Dark: "#8A5A56"},
	}
	colShrink = [diffLevels]lipgloss.AdaptiveColor{
		{Light: "#006B2E", Dark: "#3DDC84"},
		{Light: "#2E8B57", Dark: "#5FBF85"},
		{Light: "#6BAF86", Dark: "#4E9A6C"},
		{Light: "#A6CDB4", Dark: "#3F6B50"},
	}
	colDiffBoxFg = lipgloss.AdaptiveColor{Light: "#000000", Dark: "#000000"}
	// Flame graph frames: one background per package (hashed), pastel
	// under dark text on light terminals, deep under light text on dark
	// ones. Neighbouring entries differ in hue, so most neighbours in a
	// graph do too.
	colFlame = [...]lipgloss.AdaptiveColor{
		{Light: "#F4B6A6", Dark: "#8C3B2E"}, // brick
		{Light: "#B3CCEB", Dark: "#2C5F8A"}, // blue
		{Light: "#F2DE8F", Dark: "#806419"}, // ochre
		{Light: "#C9C1F0", Dark: "#5B4B9A"}, // indigo
		{Light: "#B5E0C0", Dark: "#2F7A4F"}, // green
		{Light: "#F0B5CD", Dark: "#973A62"}, // rose
		{Light: "#A8DDE0", Dark: "#1F6F78"}, // teal
		{Light: "#F7C99B", Dark: "#A0522D"}, // sienna
		{Light: "#E0B8EA", Dark: "#7E3F8F"}, // purple
		{Light: "#D9E6A0", Dark: "#5E6B1F"}, // olive
		{Light: "#E3C8A8", Dark: "#7A5230"}, // brown
		{Light: "#BFD0DC", Dark: "#44596B"}, // slate
	}
	colFlameFg     = lipgloss.AdaptiveColor{Light: "#1A1A1A", Dark: "#F2F2F2"}
	colFlameRoot   = lipgloss.AdaptiveColor{Light: "#D0D0D0", Dark: "#4A4A4A"}
	colFlameAncBg  = lipgloss.AdaptiveColor{Light: "#E8E8E8", Dark: "#303030"}
	colFlameNarrow = lipgloss.AdaptiveColor{Light: "#9A9A9A", Dark: "#6A6A6A"}
	// The cursor is the one box in the contrary shade; matches are
	// magenta, as in Brendan Gregg's flame graphs.
	colFlameCursorBg = lipgloss.AdaptiveColor{Light: "#1A1A1A", Dark: "#F2F2F2"}
	colFlameCursorFg = lipgloss.AdaptiveColor{Light: "#FFFFFF", Dark: "#000000"}
	colFlameMatchBg  = lipgloss.AdaptiveColor{Light: "#C000C0", Dark: "#E040E0"}
	colFlameMatchFg  = lipgloss.AdaptiveColor{Light: "#FFFFFF", Dark: "#000000"}
)

// NewStyles makes the styles with renderer r.
func NewStyles(r *lipgloss.Renderer) *Styles {
	s := &Styles{Renderer: r}
	n := r.NewStyle
	s.TabActive = n().Bold(true).Foreground(colAccent).Background(colTabBg).Padding(0, 1)
	s.TabInactive = n().Foreground(colMuted).Padding(0, 1)
	s.TabGap = n()
	s.Plain = n()
	s.Header = n().Bold(true).Foreground(colAccent)
	s.Selected = n().Background(colSelectBg).Foreground(colSelectFg).Bold(true)
	s.Match = n().Background(colMatchBg).Foreground(colMatchFg).Underline(true)
	s.Dim = n().Foreground(colMuted)
	s.Key = n().Bold(true).Foreground(colAccent)
	s.Bar = n().Foreground(colAccent)
	s.Status = n().Background(colStatusBg).Foreground(colStatusFg)
	s.StatusLabel = n().Background(colStatusBg).Foreground(colAccent).Bold(true)
	s.Crumb = n().Background(colStatusBg).Foreground(colCrumb)
	s.Error = n().Foreground(colError).Bold(true)
	s.Info = n().Foreground(colMuted)
	s.Prompt = n().Foreground(colAccent).Bold(true)
	s.HelpKey = n().Foreground(colAccent)
	s.HelpDesc = n().Foreground(colMuted)
	s.HelpSep = n().Foreground(colMuted)
	s.HelpTitle = n().Bold(true)
	for i, c := range colFlame {
		s.flame[i] = n().Background(c).Foreground(colFlameFg)
	}
	s.FlameRoot = n().Background(colFlameRoot).Foreground(colFlameFg).Bold(true)
	s.FlameSame = n().Background(colFlameRoot).Foreground(colFlameFg)
	s.FlameAncestor = n().Background(colFlameAncBg).Foreground(colMuted)
	s.FlameNarrow = n().Foreground(colFlameNarrow)
	s.FlameCursor = n().Background(colFlameCursorBg).Foreground(colFlameCursorFg).Bold(true)
	s.FlameMatch = n().Background(colFlameMatchBg).Foreground(colFlameMatchFg)
	if r.ColorProfile() == termenv.Ascii {
		// termenv drops every attribute (reverse video too) here: the
		// cursor mark ▶ and the active tab's brackets show through.
		s.NoColor = true
		s.TabActive = n()
		s.TabInactive = n().Padding(0, 1)
	}
	for i, c := range colHeat {
		s.heat[i] = n().Foreground(c)
	}
	s.heat[0] = s.heat[0].Bold(true)
	for i := range diffLevels {
		s.growText[i] = n().Foreground(colGrow[i])
		s.shrinkText[i] = n().Foreground(colShrink[i])
		s.growBox[i] = n().Background(colGrow[i]).Foreground(colDiffBoxFg)
		s.shrinkBox[i] = n().Background(colShrink[i]).Foreground(colDiffBoxFg)
	}
	s.growText[0] = s.growText[0].Bold(true)
	s.shrinkText[0] = s.shrinkText[0].Bold(true)
	return s
}

// DiffText returns the text style of a change delta of a total: red for
// growth, green for shrinkage, stronger for bigger shares; Plain for no
// change.
func (s *Styles) DiffText(delta, total int64) lipgloss.Style {
	switch {
	case delta > 0:
		return s.growText[diffLevel(delta, total)]
	case delta < 0:
		return s.shrinkText[diffLevel(delta, total)]
	}
	return s.Plain
}

// DiffBox is DiffText as a background, for frames of the flame graph
// and the legend; no change is Dim.
func (s *Styles) DiffBox(delta, total int64) lipgloss.Style {
	switch {
	case delta > 0:
		return s.growBox[diffLevel(delta, total)]
	case delta < 0:
		return s.shrinkBox[diffLevel(delta, total)]
	}
	return s.Dim
}

// DiffLegend describes the diff colours in at most w columns, as fully
// as w allows: "Δ = new − base ++++ growth −−−− shrinkage (strongest: …)"
// down to the swatches alone, or nothing.
func (s *Styles) DiffLegend(w int) string {
	var grow, shrink strings.Builder
	for i := range diffLevels {
		grow.WriteString(s.growBox[i].Render("+"))
		shrink.WriteString(s.shrinkBox[i].Render("−"))
	}
	g, k := grow.String(), shrink.String()
	d := s.Dim.Render
	for _, l := range []string{
		d("Δ = new − base ") + g + d(" growth ") + k + d(" shrinkage (strongest: Δ ≥ 10% of total; then 2%, 0.5%, less)"),
		d("Δ = new − base ") + g + d(" growth ") + k + d(" shrinkage"),
		g + d(" growth ") + k + d(" shrinkage"),
		g + d(" +Δ ") + k + d(" −Δ"),
		g + " " + k,
	} {
		if ansi.StringWidth(l) <= w {
			return l
		}
	}
	return ""
}

// Flame returns the style of a flame graph frame of package pkg: one
// of a dozen backgrounds, picked by a hash of the package path so that a
// package keeps its colour wherever it appears.
func (s *Styles) Flame(pkg string) lipgloss.Style {
	h := uint32(2166136261) // FNV-1a
	for i := 0; i < len(pkg); i++ {
		h = (h ^ uint32(pkg[i])) * 16777619
	}
	return s.flame[h%uint32(len(s.flame))]
}

// Heat returns the style of a percentage (0..100 and beyond).
func (s *Styles) Heat(pct float64) lipgloss.Style {
	switch {
	case pct >= 50:
		return s.heat[0]
	case pct >= 20:
		return s.heat[1]
	case pct >= 5:
		return s.heat[2]
	case pct >= 1:
		return s.heat[3]
	}
	return s.heat[4]
}

// ProgressColor is the colour of the loading bar, which takes a colour
// string rather than a style.
func (s *Styles) ProgressColor() string {
	if s.Renderer.HasDarkBackground() {
		return colAccent.Dark
	}
	return colAccent.Light
}
