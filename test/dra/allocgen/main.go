// allocgen writes differential test scenarios for berth's structured DRA allocator: seeded random
// clusters (ResourceSlices, DeviceClasses, ResourceClaims, a node, devices already allocated),
// each allocated by upstream's own allocator (k8s.io/dynamic-resource-allocation/structured, with
// kube-scheduler v1.37's default DRA features). One JSON object per line on stdout:
//
//	{"seed": N, "node": Node, "slices": [...], "classes": [...], "claims": [...],
//	 "allocated": ["driver/pool/device", ...],
//	 "allocatedShares": [{"device": "driver/pool/device", "shareID": "...",
//	                      "consumedCapacity": {...}}, ...],
//	 "fractionalCapacityRange": bool,
//	 "results": [AllocationResult...] | null, "error": "..."}
//
// About a third of the scenarios use consumable capacity (DRAConsumableCapacity): devices with
// allowMultipleAllocations and capacity request policies, requests with capacity.requests, and
// shares of devices already allocated. Those parts draw from a second random source, so the
// other parts of a scenario are the same as without them.
//
// Usage: allocgen -from 1 -count 500
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"sort"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// kube-scheduler v1.37.2's AllocatorFeatures with the default feature gates.
// DRAFractionalCapacityRange is beta in v1.37 but only on by default with
// --min-compatibility-version=1.37 (the default is 1.36); some consumable-capacity scenarios
// turn it on to cover both ways of rounding.
var features = structured.Features{
	AdminAccess:             true,
	PrioritizedList:         true,
	PartitionableDevices:    true,
	DeviceTaints:            true,
	DeviceBindingAndStatus:  true,
	ConsumableCapacity:      true,
	FractionalCapacityRange: false,
}

// The consumable-capacity parts of the scenario being generated: capRand is nil when it has
// none.
var capRand *rand.Rand

type classLister map[string]*resourceapi.DeviceClass

func (l classLister) List() ([]*resourceapi.DeviceClass, error) {
	var out []*resourceapi.DeviceClass
	for _, c := range l {
		out = append(out, c)
	}
	return out, nil
}

func (l classLister) Get(name string) (*resourceapi.DeviceClass, error) {
	if c, ok := l[name]; ok {
		return c, nil
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("deviceclass"), name)
}

type scenario struct {
	Seed      int64                          `json:"seed"`
	Node      *v1.Node                       `json:"node"`
	Slices    []*resourceapi.ResourceSlice   `json:"slices"`
	Classes   []*resourceapi.DeviceClass     `json:"classes"`
	Claims    []*resourceapi.ResourceClaim   `json:"claims"`
	Allocated []string                       `json:"allocated"`
	Shares    []share                        `json:"allocatedShares,omitempty"`
	// DRAFractionalCapacityRange for this scenario.
	FractionalCapacityRange bool `json:"fractionalCapacityRange,omitempty"`
	Results   []resourceapi.AllocationResult `json:"results"`
	Error     string                         `json:"error,omitempty"`
	// The error is upstream's ErrFailedAllocationOnNode (Unschedulable on this node only).
	FailedOnNode bool `json:"failedOnNode,omitempty"`
}

var (
	drivers = []string{"driver-a", "driver-b"}
	models  = []string{"a100", "h100", "l4"}
	// Selectors over what the generated devices carry. Some read attributes only some devices
	// have, which is a CEL runtime error on the others, as upstream reports it.
	selectors = []string{
		`device.driver == "driver-a"`,
		`device.driver == "driver-b"`,
		`device.attributes["driver-a"].model == "a100"`,
		`device.attributes["driver-b"].model == "h100"`,
		`device.attributes[device.driver].model.startsWith("a") || device.attributes[device.driver].model == "l4"`,
		`device.capacity[device.driver].memory.compareTo(quantity("40Gi")) >= 0`,
		`device.attributes[device.driver].numa == 1`,
		`"numa" in device.attributes[device.driver]`,
		`device.attributes["driver-a"].numa >= 0`,
		`true`,
		`device.attributes[device.driver].version.isGreaterThan(semver("1.2.0"))`,
	}
)

// A selector; one that may fail at run time on some devices only now and then, and otherwise
// one that is safe for the class's driver.
func selector(r *rand.Rand, class string) string {
	if r.Intn(10) == 0 {
		return pick(r, selectors)
	}
	safe := []string{selectors[4], selectors[5], selectors[7], selectors[9], `device.attributes[device.driver].model in ["a100", "l4"]`}
	switch class {
	case "class-0":
		safe = append(safe, selectors[2], selectors[8])
	case "class-1":
		safe = append(safe, selectors[3])
	}
	return pick(r, safe)
}

func pick[T any](r *rand.Rand, list []T) T { return list[r.Intn(len(list))] }

// A share of a device with allowMultipleAllocations held by an allocated claim.
type share struct {
	Device           string                                           `json:"device"`
	ShareID          string                                           `json:"shareID"`
	ConsumedCapacity map[resourceapi.QualifiedName]resource.Quantity `json:"consumedCapacity,omitempty"`
}

func q(s string) *resource.Quantity { return ptr.To(resource.MustParse(s)) }

// Request policies for the "bandwidth" (value 10Gi or 4Gi) and "cores" (value 4) capacities,
// as API validation accepts them (a default within the policy, valid values ascending).
var (
	bandwidthPolicies = []*resourceapi.CapacityRequestPolicy{
		nil,
		{Default: q("1Gi"), ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: q("1Gi")}},
		{Default: q("1Gi"), ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: q("1Gi"), Max: q("4Gi"), Step: q("1Gi")}},
		{ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: q("512Mi"), Step: q("512Mi")}},
		{Default: q("2Gi"), ValidValues: []resource.Quantity{resource.MustParse("1Gi"), resource.MustParse("2Gi"), resource.MustParse("4Gi")}},
		{Default: q("1Gi"), ValidValues: []resource.Quantity{resource.MustParse("1Gi"), resource.MustParse("3Gi")}},
	}
	memoryPolicies = []*resourceapi.CapacityRequestPolicy{
		{Default: q("10Gi"), ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: q("10Gi"), Step: q("10Gi")}},
		{Default: q("5Gi"), ValidValues: []resource.Quantity{resource.MustParse("5Gi"), resource.MustParse("10Gi"), resource.MustParse("20Gi")}},
	}
	corePolicies = []*resourceapi.CapacityRequestPolicy{
		nil,
		{Default: q("1"), ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: q("500m"), Step: q("250m")}},
		{Default: q("1"), ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: q("1"), Max: q("3"), Step: q("1")}},
		{Default: q("500m"), ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: q("500m"), Step: q("500m")}},
		{Default: q("1"), ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: q("1"), Step: q("1500m")}},
	}
)

// Consumable capacity for a device of a consumable-capacity scenario.
func capacities(d *resourceapi.Device) {
	r := capRand
	if r.Intn(3) > 0 {
		d.AllowMultipleAllocations = ptr.To(true)
	}
	if r.Intn(2) == 0 {
		// Without a policy, a share that does not ask for memory consumes all of it.
		memory := d.Capacity["memory"]
		memory.RequestPolicy = pick(r, memoryPolicies)
		d.Capacity["memory"] = memory
	}
	if r.Intn(4) > 0 {
		d.Capacity["bandwidth"] = resourceapi.DeviceCapacity{
			Value:         resource.MustParse(pick(r, []string{"10Gi", "4Gi"})),
			RequestPolicy: pick(r, bandwidthPolicies),
		}
	}
	if r.Intn(3) == 0 {
		d.Capacity["cores"] = resourceapi.DeviceCapacity{Value: resource.MustParse("4"), RequestPolicy: pick(r, corePolicies)}
	}
}

// capacity.requests for a request of a consumable-capacity scenario, or nil.
func capacityRequests() *resourceapi.CapacityRequirements {
	r := capRand
	if r == nil || r.Intn(3) == 0 {
		return nil
	}
	c := &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{}}
	if r.Intn(4) > 0 {
		c.Requests["bandwidth"] = resource.MustParse(pick(r, []string{"1Gi", "1Gi", "3Gi", "1500Mi", "5Gi", "9Gi", "100Mi"}))
	}
	if r.Intn(4) == 0 {
		c.Requests["cores"] = resource.MustParse(pick(r, []string{"1", "1500m", "700m", "2", "3"}))
	}
	if r.Intn(6) == 0 {
		c.Requests["memory"] = resource.MustParse(pick(r, []string{"10Gi", "15Gi", "30Gi", "60Gi"}))
	}
	if r.Intn(20) == 0 {
		c.Requests["missing"] = resource.MustParse("1")
	}
	return c
}

func device(r *rand.Rand, driver string, i int, region string) resourceapi.Device {
	d := resourceapi.Device{
		Name: fmt.Sprintf("dev-%d", i),
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"model": {StringValue: ptr.To(pick(r, models))},
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"memory": {Value: resource.MustParse(pick(r, []string{"20Gi", "40Gi", "80Gi"}))},
		},
	}
	if r.Intn(3) > 0 {
		d.Attributes["numa"] = resourceapi.DeviceAttribute{IntValue: ptr.To(int64(r.Intn(2)))}
	}
	if r.Intn(2) == 0 {
		d.Attributes["version"] = resourceapi.DeviceAttribute{VersionValue: ptr.To(pick(r, []string{"1.1.0", "1.2.3", "2.0.0"}))}
	}
	if r.Intn(4) == 0 {
		// A fully qualified attribute of another domain.
		d.Attributes["example.com/region"] = resourceapi.DeviceAttribute{StringValue: ptr.To(region)}
	}
	if r.Intn(8) == 0 {
		d.Taints = []resourceapi.DeviceTaint{{Key: "broken", Value: pick(r, []string{"yes", "no"}),
			Effect: pick(r, []resourceapi.DeviceTaintEffect{resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNoExecute, resourceapi.DeviceTaintEffectNone})}}
	}
	if capRand != nil {
		capacities(&d)
	}
	return d
}

func slices(r *rand.Rand) []*resourceapi.ResourceSlice {
	var out []*resourceapi.ResourceSlice
	n := 0
	for _, driver := range drivers {
		for p := 0; p < 1+r.Intn(2); p++ {
			pool := fmt.Sprintf("pool-%d", p)
			count := 1 + r.Intn(2)
			generation := int64(1 + r.Intn(2))
			// Where the pool's devices are: this node, another, every node or a region.
			where := r.Intn(6)
			published := count
			if r.Intn(8) == 0 {
				published = count - 1 // still being updated: incomplete
			}
			// In consumable-capacity scenarios, some pools share counters (one more slice, with
			// the counter set only) that their devices consume: a device with
			// allowMultipleAllocations consumes them once, whatever its number of shares.
			counters := capRand != nil && capRand.Intn(3) == 0
			sliceCount := int64(count)
			if counters {
				sliceCount++
				out = append(out, &resourceapi.ResourceSlice{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%s-counters", driver, pool)},
					Spec: resourceapi.ResourceSliceSpec{
						Driver: driver,
						Pool:   resourceapi.ResourcePool{Name: pool, Generation: generation, ResourceSliceCount: sliceCount},
						SharedCounters: []resourceapi.CounterSet{{Name: "set-0", Counters: map[string]resourceapi.Counter{
							"mem": {Value: resource.MustParse(pick(capRand, []string{"40Gi", "60Gi"}))}}}},
					},
				})
			}
			for s := 0; s < published; s++ {
				slice := &resourceapi.ResourceSlice{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%s-%d", driver, pool, s)},
					Spec: resourceapi.ResourceSliceSpec{
						Driver: driver,
						Pool:   resourceapi.ResourcePool{Name: pool, Generation: generation, ResourceSliceCount: sliceCount},
					},
				}
				switch where {
				case 0, 1, 2:
					slice.Spec.NodeName = ptr.To("node-1")
				case 3:
					slice.Spec.NodeName = ptr.To("node-2")
				case 4:
					slice.Spec.AllNodes = ptr.To(true)
				case 5:
					slice.Spec.NodeSelector = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
						MatchExpressions: []v1.NodeSelectorRequirement{{Key: "region", Operator: v1.NodeSelectorOpIn, Values: []string{pick(r, []string{"region-1", "region-2"})}}},
					}}}
				}
				for d, nd := 0, r.Intn(5); d < nd; d++ {
					dev := device(r, driver, n, "region-1")
					if counters && capRand.Intn(4) > 0 {
						dev.ConsumesCounters = []resourceapi.DeviceCounterConsumption{{CounterSet: "set-0",
							Counters: map[string]resourceapi.Counter{"mem": {Value: resource.MustParse(pick(capRand, []string{"10Gi", "20Gi"}))}}}}
					}
					slice.Spec.Devices = append(slice.Spec.Devices, dev)
					n++
				}
				if r.Intn(12) == 0 && len(slice.Spec.Devices) > 1 {
					// A duplicate device name makes the pool invalid.
					slice.Spec.Devices[1].Name = slice.Spec.Devices[0].Name
				}
				out = append(out, slice)
			}
			if r.Intn(6) == 0 && published > 0 {
				// A stale slice of an older generation is ignored.
				old := out[len(out)-1].DeepCopy()
				old.Name += "-old"
				old.Spec.Pool.Generation = generation - 1
				out = append(out, old)
			}
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func classes(r *rand.Rand) []*resourceapi.DeviceClass {
	var out []*resourceapi.DeviceClass
	for i, sel := range [][]string{{`device.driver == "driver-a"`}, {`device.driver == "driver-b"`}, nil, {selector(r, "")}} {
		c := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("class-%d", i)}}
		for _, s := range sel {
			c.Spec.Selectors = append(c.Spec.Selectors, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: s}})
		}
		if r.Intn(4) == 0 {
			c.Spec.Config = []resourceapi.DeviceClassConfiguration{{DeviceConfiguration: resourceapi.DeviceConfiguration{
				Opaque: &resourceapi.OpaqueDeviceConfiguration{Driver: pick(r, drivers), Parameters: runtimeRaw(`{"class":` + fmt.Sprint(i) + `}`)}}}}
		}
		out = append(out, c)
	}
	return out
}

func exact(r *rand.Rand) *resourceapi.ExactDeviceRequest {
	e := &resourceapi.ExactDeviceRequest{
		DeviceClassName: fmt.Sprintf("class-%d", r.Intn(4)),
		AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
		Count:           int64(1 + r.Intn(2)),
	}
	if r.Intn(40) == 0 {
		e.DeviceClassName = "missing-class"
	}
	if r.Intn(7) == 0 {
		e.AllocationMode = resourceapi.DeviceAllocationModeAll
		e.Count = 0
	}
	if r.Intn(3) == 0 {
		e.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: selector(r, e.DeviceClassName)}}}
	}
	if r.Intn(8) == 0 {
		e.AdminAccess = ptr.To(true)
	}
	if r.Intn(4) == 0 {
		e.Tolerations = []resourceapi.DeviceToleration{{Key: "broken", Operator: pick(r, []resourceapi.DeviceTolerationOperator{resourceapi.DeviceTolerationOpEqual, resourceapi.DeviceTolerationOpExists}), Value: "yes"}}
	}
	e.Capacity = capacityRequests()
	if capRand != nil && e.AllocationMode == resourceapi.DeviceAllocationModeExactCount && capRand.Intn(4) == 0 {
		// More devices per request, so that shares of one device add up.
		e.Count = int64(2 + capRand.Intn(3))
	}
	return e
}

func claims(r *rand.Rand) []*resourceapi.ResourceClaim {
	var out []*resourceapi.ResourceClaim
	for c := 0; c < 1+r.Intn(2); c++ {
		claim := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("claim-%d", c), UID: types.UID("uid-" + fmt.Sprint(c))}}
		var names []string
		for q := 0; q < 1+r.Intn(2); q++ {
			req := resourceapi.DeviceRequest{Name: fmt.Sprintf("req-%d", q)}
			if r.Intn(4) == 0 {
				for s := 0; s < 2; s++ {
					e := exact(r)
					req.FirstAvailable = append(req.FirstAvailable, resourceapi.DeviceSubRequest{
						Name: fmt.Sprintf("sub-%d", s), DeviceClassName: e.DeviceClassName, Selectors: e.Selectors,
						AllocationMode: e.AllocationMode, Count: e.Count, Tolerations: e.Tolerations, Capacity: e.Capacity})
					names = append(names, req.Name+"/"+fmt.Sprintf("sub-%d", s))
				}
			} else {
				req.Exactly = exact(r)
			}
			names = append(names, req.Name)
			claim.Spec.Devices.Requests = append(claim.Spec.Devices.Requests, req)
		}
		if r.Intn(3) == 0 {
			con := resourceapi.DeviceConstraint{}
			if r.Intn(2) == 0 {
				con.Requests = []string{pick(r, names)}
			}
			attr := resourceapi.FullyQualifiedName(pick(r, []string{"driver-a/model", "driver-b/numa", "example.com/region", "driver-a/version"}))
			if r.Intn(2) == 0 {
				con.MatchAttribute = &attr
			} else {
				con.DistinctAttribute = &attr
			}
			claim.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{con}
		}
		if r.Intn(4) == 0 {
			cfg := resourceapi.DeviceClaimConfiguration{DeviceConfiguration: resourceapi.DeviceConfiguration{
				Opaque: &resourceapi.OpaqueDeviceConfiguration{Driver: pick(r, drivers), Parameters: runtimeRaw(`{"claim":true}`)}}}
			if r.Intn(2) == 0 {
				cfg.Requests = []string{pick(r, names)}
			}
			claim.Spec.Devices.Config = []resourceapi.DeviceClaimConfiguration{cfg}
		}
		out = append(out, claim)
	}
	return out
}

func generate(seed int64) scenario {
	r := rand.New(rand.NewSource(seed))
	capRand = nil
	if c := rand.New(rand.NewSource(seed*7919 + 17)); c.Intn(3) == 0 {
		capRand = c
	}
	sc := scenario{Seed: seed}
	sc.Node = &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"region": pick(r, []string{"region-1", "region-2"})}}}
	sc.Slices = slices(r)
	sc.Classes = classes(r)
	sc.Claims = claims(r)
	allocated := sets.New[structured.DeviceID]()
	for _, s := range sc.Slices {
		for _, d := range s.Spec.Devices {
			if r.Intn(6) == 0 {
				allocated.Insert(structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, d.Name))
				sc.Allocated = append(sc.Allocated, s.Spec.Driver+"/"+s.Spec.Pool.Name+"/"+d.Name)
			}
		}
	}
	sort.Strings(sc.Allocated)
	state := structured.AllocatedState{
		AllocatedDevices:         allocated,
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	f := features
	if capRand != nil {
		f.FractionalCapacityRange = capRand.Intn(3) == 0
		sc.FractionalCapacityRange = f.FractionalCapacityRange
		// Shares that allocated claims hold, as the scheduler gathers them: each share's
		// shareID, and what it consumes added up per device.
		n := 0
		for _, s := range sc.Slices {
			for _, d := range s.Spec.Devices {
				if !ptr.Deref(d.AllowMultipleAllocations, false) || capRand.Intn(3) > 0 {
					continue
				}
				id := structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, d.Name)
				for k := 0; k < 1+capRand.Intn(2); k++ {
					sh := share{Device: s.Spec.Driver + "/" + s.Spec.Pool.Name + "/" + d.Name, ShareID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n)}
					n++
					if capRand.Intn(4) > 0 {
						sh.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{}
						var names []string
						for name := range d.Capacity {
							names = append(names, string(name))
						}
						sort.Strings(names)
						for _, n := range names {
							name := resourceapi.QualifiedName(n)
							c := d.Capacity[name]
							amount := c.Value
							switch capRand.Intn(3) {
							case 0:
								amount = resource.MustParse(pick(capRand, []string{"1Gi", "2Gi", "3Gi"}))
								if name == "cores" {
									amount = resource.MustParse(pick(capRand, []string{"500m", "1", "2"}))
								}
							case 1:
								if c.RequestPolicy != nil && c.RequestPolicy.Default != nil {
									amount = *c.RequestPolicy.Default
								}
							}
							sh.ConsumedCapacity[name] = amount
						}
					}
					uid := types.UID(sh.ShareID)
					state.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, &uid))
					if sh.ConsumedCapacity != nil {
						state.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, sh.ConsumedCapacity))
					}
					sc.Shares = append(sc.Shares, sh)
				}
			}
		}
	}
	lister := classLister{}
	for _, c := range sc.Classes {
		lister[c.Name] = c
	}
	ctx := context.Background()
	alloc, err := structured.NewAllocator(ctx, f, state,
		lister, sc.Slices, cel.NewCache(10, cel.Features{EnableConsumableCapacity: true}))
	if err != nil {
		sc.Error = err.Error()
		return sc
	}
	results, err := alloc.Allocate(ctx, sc.Node, sc.Claims)
	if err != nil {
		sc.Error = err.Error()
		sc.FailedOnNode = errors.Is(err, structured.ErrFailedAllocationOnNode)
	}
	sc.Results = results
	return sc
}

func main() {
	from := flag.Int64("from", 1, "first seed")
	count := flag.Int64("count", 100, "number of scenarios")
	flag.Parse()
	enc := json.NewEncoder(os.Stdout)
	for seed := *from; seed < *from+*count; seed++ {
		if err := enc.Encode(generate(seed)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
