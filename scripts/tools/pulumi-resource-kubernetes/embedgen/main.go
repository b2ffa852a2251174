// Command embedgen writes the two files the provider's main embeds, into the current folder: the
// provider's schema with its version set (schema-embed.json) and its Terraform mapping
// (terraform-mapping-embed.json), both minified. Usage: embedgen <provider cmd folder> <version>.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: embedgen <folder with schema.json and terraform-mapping.json> <version>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintf(os.Stderr, "embedgen: %v\n", err)
		os.Exit(1)
	}
}

func run(dir, version string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "schema.json"))
	if err != nil {
		return err
	}
	var schema map[string]json.RawMessage
	if err := json.Unmarshal(raw, &schema); err != nil {
		return fmt.Errorf("schema.json: %w", err)
	}
	if schema["version"], err = json.Marshal(version); err != nil {
		return err
	}
	out, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	if err := os.WriteFile("schema-embed.json", out, 0o644); err != nil {
		return err
	}
	raw, err = os.ReadFile(filepath.Join(dir, "terraform-mapping.json"))
	if err != nil {
		return err
	}
	var mapping bytes.Buffer
	if err := json.Compact(&mapping, raw); err != nil {
		return fmt.Errorf("terraform-mapping.json: %w", err)
	}
	return os.WriteFile("terraform-mapping-embed.json", mapping.Bytes(), 0o644)
}
