package reader

import "testing"

func TestNetworkedFS(t *testing.T) {
	for magic, want := range map[uint32]string{
		0x65735546: "FUSE", 0x0BD00BD0: "Lustre", 0x6969: "NFS", 0x47504653: "GPFS",
		0xEF53: "", 0x01021994: "", 0x58465342: "", 0: "", // ext4, tmpfs, XFS
	} {
		if got := networkedFS(magic); got != want {
			t.Errorf("networkedFS(%#x) = %q, want %q", magic, got, want)
		}
	}
	if got := Networked("/nonexistent/path"); got != "" {
		t.Errorf("Networked of a missing path = %q, want \"\"", got)
	}
}
