package format

import "testing"

// TestDemangleFunctions checks pprof's demangling modes on mangled names
// and its simplification of names that are already demangled.
func TestDemangleFunctions(t *testing.T) {
	for _, c := range []struct {
		system, mode, want string
	}{
		{"_ZN2ns3FooIiE3barEv", "", "ns::Foo::bar"},
		{"_ZN2ns3FooIiE3barEv", "templates", "ns::Foo<int>::bar"},
		{"_ZN2ns3FooIiE3barEv", "full", "ns::Foo<int>::bar()"},
		{"_ZN2ns3FooIiE3barEv", "none", "_ZN2ns3FooIiE3barEv"},
		{"_ZNK3Bar4sizeEv.cold", "", "Bar::size"},
		{"__ZN2ns3bazEi", "", "ns::baz"}, // macOS's extra underscore
		{"std::vector<int, std::allocator<int> >::push_back(int const&)", "", "std::vector::push_back"},
		{"std::vector<int, std::allocator<int> >::push_back(int const&)", "templates", "std::vector<int, std::allocator<int> >::push_back"},
		{"main.(*T[go.shape.int]).M", "", "main.(*T[go.shape.int]).M"}, // Go, not C++
		{"java.util.HashMap.<init>", "", "java.util.HashMap.<init>"},
		{"fib", "", "fib"},
		{"a::b(c))d(e)", "", "a::b)d(e)"}, // an unbalanced ')' stops the simplification
		{"a::b<c>::d<e", "", "a::b::d<e"}, // an unclosed '<' is kept
	} {
		p := &Profile{Functions: []Function{{Name: c.system, SystemName: c.system}}}
		demangleFunctions(p, false, c.mode)
		if got := p.Functions[0].Name; got != c.want {
			t.Errorf("%q with mode %q: %q, want %q", c.system, c.mode, got, c.want)
		}
	}
	// force undoes an earlier demangling before demangling again.
	p := &Profile{Functions: []Function{{Name: "ns::Foo::bar", SystemName: "_ZN2ns3FooIiE3barEv"}}}
	demangleFunctions(p, true, "full")
	if got := p.Functions[0].Name; got != "ns::Foo<int>::bar()" {
		t.Errorf("force, full: %q", got)
	}
}

// TestSymbolizeModes checks the parsing of pprof's -symbolize values.
func TestSymbolizeModes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want symbolizeMode
		none bool
	}{
		{"", symbolizeMode{local: true}, false},
		{"none", symbolizeMode{demangle: "none"}, true},
		{"local:force", symbolizeMode{local: true, force: true}, false},
		{"fastlocal", symbolizeMode{local: true, fast: true}, false},
		{"demangle=full", symbolizeMode{local: true, force: true, demangle: "full"}, false},
		{"remote", symbolizeMode{}, false},
	} {
		var msgs []string
		s := newSymbolizer(Options{Symbolize: c.in, Status: func(m string) { msgs = append(msgs, m) }})
		if s.mode != c.want || s.mode.none() != c.none {
			t.Errorf("%q: %+v (none %v), want %+v", c.in, s.mode, s.mode.none(), c.want)
		}
	}
	var msgs []string
	newSymbolizer(Options{Symbolize: "bogus", Status: func(m string) { msgs = append(msgs, m) }})
	if len(msgs) != 1 {
		t.Errorf("an unknown option should be reported once: %q", msgs)
	}
}
