module github.com/pulumi/pulumi-java

go 1.21

require (
	github.com/pulumi/pulumi/pkg/v3 v3.256.0
	github.com/hashicorp/hcl/v2 v2.24.0
)
