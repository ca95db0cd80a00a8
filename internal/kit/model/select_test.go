package model

import "testing"

func TestSelector(t *testing.T) {
	o := func(c Contender, nodes, rpn int, consumer string) Observation {
		return Observation{Config: Config{Contender: c, Nodes: nodes, RanksPerNode: rpn, Workload: Workload{Consumer: consumer}}}
	}
	obs := []Observation{o(Caffe, 1, 4, "touch"), o(STAG, 8, 4, "touch"), o(STAG, 4, 2, "sha256"), o(PROV, 16, 1, "touch")}
	cases := []struct {
		sel  string
		want []bool
	}{
		{"nodes=8", []bool{false, true, false, false}},
		{"nodes>=8", []bool{false, true, false, true}},
		{"ranks-per-node<=2", []bool{false, false, true, true}},
		{"contender=lmdb,lmm+dio+prov", []bool{true, false, false, true}},
		{"contender=default", []bool{false, true, true, false}},
		{"consumer=sha256", []bool{false, false, true, false}},
	}
	for _, c := range cases {
		s, err := ParseSelector(c.sel)
		if err != nil {
			t.Fatalf("%s: %v", c.sel, err)
		}
		for i, w := range c.want {
			if s.Match(obs[i]) != w {
				t.Errorf("%s on %+v: %v", c.sel, obs[i].Config, !w)
			}
		}
	}
	for _, bad := range []string{"", "nodes", "nodes=", "nodes=x", "nodes>=1,2", "consumer>=2", "colour=red", "contender=fast", "nodes=0"} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("ParseSelector(%q) accepted", bad)
		}
	}
	eight, _ := ParseSelector("nodes>=8")
	sha, _ := ParseSelector("consumer=sha256")
	fit, held := HoldOut(obs, []Selector{eight, sha})
	if len(fit) != 1 || len(held) != 3 {
		t.Errorf("HoldOut: %d fit, %d held", len(fit), len(held))
	}
}
