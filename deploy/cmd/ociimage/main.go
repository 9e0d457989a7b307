// Command ociimage writes the tickrules container image as an OCI image
// layout, from a static engine binary, without a container engine:
//
//	CGO_ENABLED=0 go build -trimpath -o engine ./cmd/engine
//	cd deploy && go run ./cmd/ociimage --binary ../engine --out ../tickrules-oci
//	podman load -i ../tickrules-oci   # or: skopeo copy oci:../tickrules-oci docker://REGISTRY/tickrules:TAG
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tickrules/tickrules/deploy/image"
)

func main() {
	binary := flag.String("binary", "", "the static engine `binary` (CGO_ENABLED=0 go build ./cmd/engine)")
	out := flag.String("out", "tickrules-oci", "the OCI layout `dir` to write")
	certs := flag.String("ca-certs", image.CACertsPath, "the CA bundle `file` to put in the image")
	version := flag.String("version", "dev", "the image's version label and tag")
	flag.Parse()
	if *binary == "" {
		fmt.Fprintln(os.Stderr, "ociimage: --binary is required")
		os.Exit(2)
	}
	img, err := image.Build(image.Options{Binary: *binary, CACerts: *certs, Version: *version})
	if err == nil {
		err = image.WriteLayout(*out, img, *version)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ociimage: %v\n", err)
		os.Exit(1)
	}
	d, err := img.Digest()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ociimage: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s: image %s\n", *out, d)
}
