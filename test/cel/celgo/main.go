// celgo: the reference side of berth's CEL differential test. Reads JSON lines
// {"expr": "...", "device": {...}} on stdin and prints one JSON line per input:
// {"ok": bool, "value": bool, "class": "compile"|"runtime"|"cost"|"", "error": "...", "cost": N}
// using the DRA compiler exactly as kube-scheduler does (stored expressions, no cost estimation,
// the default runtime cost limit).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
)

type device struct {
	Driver                   string                                                 `json:"driver"`
	AllowMultipleAllocations *bool                                                  `json:"allowMultipleAllocations,omitempty"`
	Attributes               map[resourceapi.QualifiedName]resourceapi.DeviceAttribute `json:"attributes,omitempty"`
	Capacity                 map[resourceapi.QualifiedName]resourceapi.DeviceCapacity  `json:"capacity,omitempty"`
}

type input struct {
	Expr   string `json:"expr"`
	Device device `json:"device"`
}

type output struct {
	OK    bool   `json:"ok"`
	Value bool   `json:"value"`
	Class string `json:"class,omitempty"`
	Error string `json:"error,omitempty"`
	Cost  uint64 `json:"cost"`
}

func main() {
	// Same feature set as kube-scheduler v1.37 defaults; stored expressions ignore it anyway.
	compiler := cel.GetCompiler(cel.Features{EnableConsumableCapacity: true})
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var req input
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			fmt.Fprintf(os.Stderr, "celgo: bad input line %q: %v\n", line, err)
			os.Exit(2)
		}
		_ = enc.Encode(evaluate(compiler, req))
	}
}

func evaluate(compiler interface {
	CompileCELExpression(string, cel.Options) cel.CompilationResult
}, req input) output {
	res := compiler.CompileCELExpression(req.Expr, cel.Options{DisableCostEstimation: true})
	if res.Error != nil {
		return output{Class: "compile", Error: res.Error.Error()}
	}
	d := cel.Device{
		Driver:                   req.Device.Driver,
		AllowMultipleAllocations: req.Device.AllowMultipleAllocations,
		Attributes:               req.Device.Attributes,
		Capacity:                 req.Device.Capacity,
	}
	matches, details, err := res.DeviceMatches(context.Background(), d)
	var cost uint64
	if details != nil && details.ActualCost() != nil {
		cost = *details.ActualCost()
	}
	if err != nil {
		class := "runtime"
		if strings.Contains(err.Error(), "actual cost limit exceeded") {
			class = "cost"
		}
		return output{Class: class, Error: err.Error(), Cost: cost}
	}
	return output{OK: true, Value: matches, Cost: cost}
}
