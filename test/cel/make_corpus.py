#!/usr/bin/env python3
"""Writes test/cel/corpus.jsonl: every expression below evaluated against every device below
(plus a few targeted pairs). The expected outcomes are not stored: the differential test asks
cel-go (test/cel/celgo) each time. Run from anywhere: python3 test/cel/make_corpus.py"""
import json, os

GPU = {"driver": "gpu.example.com", "allowMultipleAllocations": True,
       "attributes": {
           "model": {"string": "a100"},
           "cores": {"int": 108},
           "mig": {"bool": True},
           "driverVersion": {"version": "1.2.3"},
           "gpu.example.com/family": {"string": "ampere"},
           "other.example.com/rack": {"int": 7},
           "numa": {"int": 0},
           "uuid": {"string": "GPU-2f1c-Ünï"},
       },
       "capacity": {
           "memory": {"value": "40Gi"},
           "gpu.example.com/power": {"value": "300"},
           "other.example.com/bw": {"value": "10G"},
           "slices": {"value": "1500m"},
       }}
NIC = {"driver": "nic.example.com",
       "attributes": {
           "speed": {"int": 100},
           "vendor": {"string": "acme"},
           "fw": {"version": "2.0.0-beta.1"},
           "sriov": {"bool": False},
           "model": {"string": "cx7"},
       },
       "capacity": {"vfs": {"value": "8"}}}
EMPTY = {"driver": "empty.example.com"}
DEVICES = [GPU, NIC, EMPTY]

EXPRS = r"""
# --- driver and basic attribute lookups
device.driver == "gpu.example.com"
device.driver != "gpu.example.com"
device.driver.startsWith("gpu.")
device.driver.endsWith(".example.com")
device.driver.contains("nic")
device.driver in ["gpu.example.com", "nic.example.com"]
device.allowMultipleAllocations
!device.allowMultipleAllocations
device.allowMultipleAllocations == true
device.attributes["gpu.example.com"].model == "a100"
device.attributes["gpu.example.com"]["model"] == "a100"
device.attributes["gpu.example.com"].family == "ampere"
device.attributes["other.example.com"].rack == 7
device.attributes["other.example.com"].rack > 5
device.attributes["gpu.example.com"].cores >= 100
device.attributes["gpu.example.com"].cores * 2 == 216
device.attributes["gpu.example.com"].mig
device.attributes["gpu.example.com"].mig == true
device.attributes["gpu.example.com"].numa == 0
device.attributes[device.driver].model == "a100"
device.attributes[device.driver].model == "cx7"
device.attributes["nic.example.com"].speed == 100
device.attributes["nic.example.com"].vendor == "acme" && device.attributes["nic.example.com"].sriov == false
device.attributes["nic.example.com"].sriov
device.attributes["missing.example.com"].model == "x"
device.attributes["gpu.example.com"].nosuch == 1
device.attributes["gpu.example.com"].model == 1
device.attributes["gpu.example.com"].model > 1
device.attributes["gpu.example.com"].cores == "108"
device.attributes["gpu.example.com"].cores == 108.0
device.attributes["gpu.example.com"].cores == 108u
device.attributes["gpu.example.com"].cores < 200.5
device.attributes["gpu.example.com"].model
device.attributes["gpu.example.com"].mig || device.attributes["nic.example.com"].sriov
device.attributes["gpu.example.com"].mig && device.attributes["nic.example.com"].sriov
device.attributes["nic.example.com"].sriov || device.driver == "gpu.example.com"
false && device.attributes["x"].y
true || device.attributes["x"].y
device.attributes["x"].y || true
device.attributes["x"].y && false
device.attributes["x"].y || false
device.attributes.size() > 0
device.attributes.size() == 2
device.attributes["gpu.example.com"].size() == 6
device.attributes["nope"].size() == 0
device.capacity.size() >= 1
"gpu.example.com" in device.attributes
"model" in device.attributes[device.driver]
"other.example.com" in device.attributes && "rack" in device.attributes["other.example.com"]
has(device.attributes["gpu.example.com"].model)
has(device.attributes["gpu.example.com"].nosuch)
has(device.attributes.nosuch)
has(device.attributes["nic.example.com"].speed) && device.attributes["nic.example.com"].speed > 10
!has(device.attributes["gpu.example.com"].model) || device.attributes["gpu.example.com"].model == "a100"
device.attributes["gpu.example.com"].?model.orValue("none") == "a100"
device.attributes["gpu.example.com"].?model.orValue("none") == "none"
device.attributes["gpu.example.com"].?model.hasValue()
device.attributes[?"gpu.example.com"].hasValue()
device.attributes["gpu.example.com"][?"cores"].orValue(0) > 50
device.attributes["gpu.example.com"].?nosuch.orValue(3) == 3
optional.of(1).value() == 1
optional.none().orValue(true)
optional.none().hasValue()
# --- versions
device.attributes["gpu.example.com"].driverVersion == semver("1.2.3")
device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.2.0"))
device.attributes["gpu.example.com"].driverVersion.isLessThan(semver("1.10.0"))
device.attributes["gpu.example.com"].driverVersion.compareTo(semver("1.2.3")) == 0
device.attributes["gpu.example.com"].driverVersion.major() == 1
device.attributes["gpu.example.com"].driverVersion.minor() == 2 && device.attributes["gpu.example.com"].driverVersion.patch() == 3
device.attributes["nic.example.com"].fw.isLessThan(semver("2.0.0"))
device.attributes["nic.example.com"].fw.isGreaterThan(semver("2.0.0-alpha.9"))
device.attributes["nic.example.com"].fw.compareTo(semver("2.0.0-beta.10")) < 0
device.attributes["nic.example.com"].fw == semver("2.0.0-beta.1")
device.attributes["gpu.example.com"].driverVersion == "1.2.3"
semver("1.2.3").isGreaterThan(semver("1.2.3-rc.1"))
semver("1.0.0-alpha").isLessThan(semver("1.0.0-alpha.1"))
semver("1.0.0-alpha.beta").isLessThan(semver("1.0.0-beta"))
semver("1.0.0-rc.1").isLessThan(semver("1.0.0"))
semver("1.0.0+build.1") == semver("1.0.0+build.2")
semver("1.2") == semver("1.2.0")
semver("v1.2.3") == semver("1.2.3")
semver("v1.2", true) == semver("1.2.0")
semver("1", true).major() == 1
semver("01.2.3").major() == 1
semver("1.2.3-01").major() == 1
semver("1.2.x").major() == 1
isSemver("1.2.3")
isSemver("1.2")
isSemver("v1.2", true)
isSemver("1.2.3-rc.1+b5")
!isSemver("not a version")
semver("1.2.3") < semver("1.2.4")
semver("1.2.3").major() == 1u
# --- quantities
device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0
device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0
device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("32Gi"))
device.capacity["gpu.example.com"].memory.isLessThan(quantity("32Gi"))
device.capacity["gpu.example.com"].memory == quantity("40Gi")
device.capacity["gpu.example.com"].memory == quantity("42949672960")
device.capacity["gpu.example.com"].power.asInteger() == 300
device.capacity["gpu.example.com"].power.isInteger()
device.capacity["gpu.example.com"].slices.isInteger()
device.capacity["gpu.example.com"].slices.asInteger() == 1
device.capacity["gpu.example.com"].slices.asApproximateFloat() == 1.5
device.capacity["gpu.example.com"].power.sign() == 1
device.capacity["gpu.example.com"].power.add(quantity("100")).asInteger() == 400
device.capacity["gpu.example.com"].power.add(100) == quantity("400")
device.capacity["gpu.example.com"].power.sub(quantity("400")).sign() == -1
device.capacity["gpu.example.com"].power.sub(1).asInteger() == 299
device.capacity["other.example.com"].bw.compareTo(quantity("1G")) == 1
device.capacity["nic.example.com"].vfs.asInteger() >= 4
device.capacity["nic.example.com"].vfs.isGreaterThan(quantity("4"))
device.capacity["gpu.example.com"].nosuch.isInteger()
device.capacity["none.example.com"].size() == 0
device.capacity["gpu.example.com"].memory > quantity("1Gi")
device.capacity["gpu.example.com"].memory.compareTo(1) == 0
quantity("1Gi") == quantity("1024Mi")
quantity("1k") == quantity("1000")
quantity("1.5").isInteger()
quantity("500m").asApproximateFloat() < 1.0
quantity("bogus") == quantity("1")
quantity("Gi") == quantity("0")
quantity("000m").isInteger()
quantity("0").isInteger()
quantity("0.0").isInteger()
quantity(".") == quantity("0")
quantity("1K") == quantity("1k")
quantity("1e") == quantity("1")
"a1b2".findAll("[0-9]+[").size() == 2
type(1) == .int
quantity("1Qi").sign() == 1
isQuantity("10Gi") && !isQuantity("10 Gi")
isQuantity("1e3")
quantity("1e3") == quantity("1k")
quantity("-2").sign() == -1
quantity("0").sign() == 0
quantity("100m").asInteger() == 0
quantity("1.0").isInteger()
quantity("1000m").isInteger()
quantity("1k").isInteger()
quantity("1.5k").isInteger()
quantity("0.5Ki").isInteger()
quantity("999999999999999999").isInteger()
quantity("1000000000000000000").isInteger()
quantity("1Ei").isInteger()
quantity("7Ei").isInteger()
quantity("1.0Gi").isInteger()
quantity("1E").isInteger()
quantity("10E").isInteger()
quantity("0.001k").isInteger()
quantity("1000000u").isInteger()
quantity("1000000000n").isInteger()
quantity("16Ei").isInteger()
quantity("1").add(quantity("1m")).sub(quantity("1m")).isInteger()
quantity("9E").add(quantity("9E")).isInteger()
quantity("1k").add(1).asInteger() == 1001
quantity("16Ei") == quantity("8Ei").add(quantity("8Ei"))
quantity("1u") == quantity("1n")
quantity("0.0001") < quantity("0.0002")
quantity("0.0000000001") == quantity("1n")
quantity("-0.0000000001").sign() == -1
quantity("1.5Gi").asApproximateFloat() == 1610612736.0
quantity("0.1Ki") == quantity("102400m")
quantity("1e-3") == quantity("1m")
quantity("9223372036854775807").isInteger()
quantity("9223372036854775808").isInteger()
quantity("8Ei").asInteger() > 0
quantity("Ei").asInteger() > 0
quantity("Pi").isInteger()
quantity("Ti").asInteger() == 0
quantity(".Ei").isInteger()
quantity("-Ei").isInteger()
quantity("0Ei").asInteger() == 0
quantity("e-10").isInteger()
quantity("e-9").asInteger() == 0
quantity(".e-10").isInteger()
quantity("-n").asInteger() == 0
isQuantity("Ei")
isQuantity("Ti")
device.capacity["gpu.example.com"].slices.compareTo(quantity("1500000u")) == 0
# --- strings extension and regex
device.attributes["gpu.example.com"].model.matches("^a[0-9]+$")
device.attributes["gpu.example.com"].model.matches("^h")
device.driver.matches("example\\.com$")
matches(device.driver, "gpu")
device.attributes["gpu.example.com"].model.upperAscii() == "A100"
"ABC".lowerAscii() == "abc"
device.attributes["gpu.example.com"].model.charAt(0) == "a"
device.attributes["gpu.example.com"].model.indexOf("1") == 1
device.attributes["gpu.example.com"].model.lastIndexOf("0") == 3
"hello world".indexOf("o", 5) == 7
"hello".indexOf("x") == -1
"hello world".indexOf("o", 54)
"hello world".indexOf("o", 11)
"hello world".indexOf("", 54)
"hello world".indexOf("", 3)
"hello world".indexOf("o", -1)
"".indexOf("")
"".indexOf("a")
"".indexOf("", 2)
"hello world".lastIndexOf("o", 54)
"hello world".lastIndexOf("o", 10)
"hello world".lastIndexOf("o", 5)
"hello world".lastIndexOf("", 54)
"hello world".lastIndexOf("")
"hello world".lastIndexOf("o", -2)
"ab".lastIndexOf("abc")
"ab".lastIndexOf("abc", 1)
"".lastIndexOf("")
"".lastIndexOf("a")
"äöü".lastIndexOf("ü")
"äöü".indexOf("ö", 1)
"äöü".lastIndexOf("ä", 2)
"ä".lastIndexOf("aa")
"hello".substring(1, 3) == "el"
"hello".substring(3) == "lo"
"hello".substring(4, 2) == "x"
"hello".substring(9) == "x"
"hello".charAt(10) == ""
"  pad  ".trim() == "pad"
"a,b,c".split(",").size() == 3
"a,b,c".split(",", 2)[1] == "b,c"
"a-b-c".replace("-", "+") == "a+b+c"
"a-b-c".replace("-", "+", 1) == "a+b-c"
["a", "b"].join("/") == "a/b"
["a", "b"].join() == "ab"
device.driver.split(".")[0] == "gpu"
device.attributes["gpu.example.com"].uuid.size() == 12
device.attributes["gpu.example.com"].uuid.charAt(10) == "ï"
device.attributes["gpu.example.com"].uuid.startsWith("GPU-")
"abc123def".find("[0-9]+") == "123"
"abc".find("[0-9]+") == ""
"a1b22c333".findAll("[0-9]+").size() == 3
"a1b22c333".findAll("[0-9]+", 2) == ["1", "22"]
"abc".matches("[")
"abc".find("(")
"ABC".matches("(?i)abc")
device.attributes["gpu.example.com"].model.matches("(?i)^A1")
"abc".find("(?P<x>b)") == "b"
"a.b".matches("\\Aa\\.b\\z")
has(device.driver.x)
{"a": 1, "a": 2}["a"] == 2
{device.driver: 1, "gpu.example.com": 2}.size() == 1
size("héllo") == 5
"x" + device.driver == "xgpu.example.com"
# --- lists, maps and macros
[1, 2, 3].exists(x, x == 2)
[1, 2, 3].all(x, x > 0)
[1, 2, 3].exists_one(x, x > 1)
[1, 2, 3].map(x, x * 10) == [10, 20, 30]
[1, 2, 3].filter(x, x % 2 == 1) == [1, 3]
[1, 2, 3].map(x, x > 1, x + 1) == [3, 4]
[0, 1].exists(x, 1 / x > 0)
[1, 0].all(x, 1 / x > 0)
[0, 1].all(x, 1 / x > 0)
device.attributes.exists(d, d == "other.example.com")
device.attributes[device.driver].exists(k, k == "model")
device.attributes[device.driver].all(k, k.size() > 2)
device.capacity[device.driver].exists(k, device.capacity[device.driver][k].isInteger())
device.attributes.all(d, device.attributes[d].size() > 0)
device.attributes["gpu.example.com"].cores.exists(x, x == 1)
[1, 2, 3].sum() == 6
[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3
[1, 2, 3].isSorted() && ![3, 2].isSorted()
[1, 2, 3, 2].indexOf(2) == 1 && [1, 2, 3, 2].lastIndexOf(2) == 3
[].min() == 1
[1.5, 2.5].sum() == 4.0
["b", "a"].isSorted()
[1, 2] + [3] == [1, 2, 3]
[1, 2, 3][1] == 2
[1, 2, 3][5] == 2
[1, 2, 3][-1] == 2
{"a": 1, "b": 2}["b"] == 2
{"a": 1}["z"] == 2
{"a": 1, "b": 2}.size() == 2
"a" in {"a": 1}
2 in [1, 2, 3]
{"a": 1}.all(k, k == "a")
[[1, 2], [3]].exists(l, l.size() == 1)
[1, 2, 3].map(x, [x, x]).size() == 3
[1, "a"].size() == 2
{"a": 1, "b": "x"}.size() == 2
{1: "a", 2: "b"}[1] == "a"
[device.driver, "x"].exists(s, s == "x")
cel.bind(gpu, device.attributes["gpu.example.com"], gpu.model == "a100" && gpu.cores > 100)
cel.bind(x, 5, x * x == 25)
cel.bind(d, device.attributes[device.driver], has(d.model) && d.model.size() > 1)
[3, 1, 2].sort() == [1, 2, 3]
["b", "a"].sort()[0] == "a"
[1, 2, 3, 4].slice(1, 3) == [2, 3]
[1, 2].slice(2, 1).size() == 0
[1, 2].slice(0, 5).size() == 0
[[1, 2], [3]].flatten() == [1, 2, 3]
[[1, [2]], [3]].flatten(2).size() == 3
[[1], [2]].flatten(-1).size() == 2
lists.range(4) == [0, 1, 2, 3]
lists.range(-1).size() == 0
[1, 2, 3].reverse() == [3, 2, 1]
[1, 2, 1, 3, 2].distinct() == [1, 2, 3]
device.driver.split(".").reverse()[0] == "com"
sets.contains([1, 2, 3], [1, 3])
sets.contains([1, 2], [4])
sets.equivalent([1, 2], [2, 1, 1])
sets.intersects([1, 2], [2, 3])
sets.intersects(device.driver.split("."), ["example", "x"])
[10, 20, 30].all(i, v, v == (i + 1) * 10)
[10, 20, 30].exists(i, v, i == 2 && v == 30)
[1, 1, 2].existsOne(i, v, v == 2)
[1, 1, 2].exists_one(i, v, v == 1)
[1, 2, 3].transformList(i, v, i * v) == [0, 2, 6]
[1, 2, 3].transformList(i, v, i > 0, v) == [2, 3]
{"a": 1, "b": 2}.all(k, v, v > 0)
device.attributes[device.driver].exists(k, v, k == "model" && v == "a100")
"a".reverse() == "a"
[1, 2, 3].includes(2)
"model-a".includes("model-a")
device.attributes[device.driver].model.includes("a100")
[device.driver].includes("x")
# --- arithmetic, conversions, equality
1 + 2 * 3 == 7
(1 + 2) * 3 == 9
10 / 3 == 3 && 10 % 3 == 1
-7 / 2 == -3 && -7 % 2 == -1
1 / 0 == 0
1 % 0 == 0
9223372036854775807 + 1 > 0
-9223372036854775808 - 1 < 0
-9223372036854775808 / -1 < 0
18446744073709551615u + 1u > 0u
1u - 2u > 0u
2.0 / 0.0 > 1000.0
1.0 / 3.0 > 0.33
int("42") == 42
int("4x2") == 42
int(device.attributes["gpu.example.com"].cores) == 108
uint(-1) == 1u
uint(5) == 5u
double(1) / 2.0 == 0.5
int(2.9) == 2
string(device.attributes["gpu.example.com"].cores) == "108"
string(true) == "true"
string(1.5) == "1.5"
bool("true") && !bool("false")
bool("yes")
bytes("abc") == b"abc"
b"abc".size() == 3
type(1) == int
type("a") == string
type(device.attributes["gpu.example.com"].model) == string
dyn(1) == 1.0
dyn(1) == 1u
dyn("1") == 1
1 == 1.0
1 == "1"
1 < 1.5 && 2u > 1 && 1.5 >= 1u
null == null
[1, 2] == [1, 2] && [1] != [2]
{"a": 1} == {"a": 1}
"abc" < "abd" && "b" > "a"
true ? device.driver == "gpu.example.com" : false
device.attributes["gpu.example.com"].mig ? 1 == 1 : 1 == 2
device.attributes["x"].y ? true : false
(device.driver == "gpu.example.com" ? device.attributes : device.capacity).size() > 0
true ? 1 : "a"
"\x41\u00e9\101" == "Aé" + "A"
r"\d" == "\\d"
'''single''' == "single"
0x10 == 16
1e3 == 1000.0
.5 == 0.5
!!true
--1 == 1
# --- compile errors
foo
foo(1)
device.foo
device.driver.foo()
device.driver == 1
device.attributes == 1
1 +
(1 + 2
device.
"unterminated
size(1) == 1
"a".startsWith(1)
[1, 2].foo(1)
device.attributes["gpu.example.com"].model.matches("(")
has(1)
1
device.driver
device.attributes["gpu.example.com"]
"abc"
[true]
x.y.z
device.attributes.exists(1, true)
[1,2].all(x, x)
1 ? true : false
quantity(1)
semver(1)
quantity("1") == 1
-"a" == "a"
!1
1.size()
device.capacity["a"]["b"].foo()
[1, 2].sum("x")
url("https://x") != null
ip("1.2.3.4").family() == 4
sets.contains([1], [1])
[1,2].all(i, v, v > 0)
device.driver.format([]) == ""
timestamp("2024-01-01T00:00:00Z") > timestamp("2023-01-01T00:00:00Z")
"a".reverse() == "a"
lists.range(3).size() == 3
# --- cost
[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(a, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(b, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(c, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(d, a + b + c + d > 0))))
[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(a, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(b, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(c, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(d, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(e, a + b + c + d + e > 0)))))
[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(a, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(b, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(c, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(d, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(e, e))))).size() == 10
[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(a, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(b, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(c, device.attributes.all(d, device.attributes[d].all(k, k != "")))))
[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].exists(a, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].exists(b, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].exists(c, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].exists(d, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].exists(e, a + b + c + d + e < 0)))))
[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(a, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(b, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(c, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(d, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(e, string(a) + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" != "")))))
[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(a, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(b, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(c, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz".matches("^(a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q|r|s|t|u|v|w|x|y|z)+$"))))
"""

# Expressions that iterate a map: cel-go walks Go maps in random order, so their cost (and which
# of several errors is reported) differs from run to run; the test compares the value only.
UNORDERED = ["device.attributes.exists(", "device.attributes[device.driver].exists(",
             "device.attributes[device.driver].all(", "device.capacity[device.driver].exists(",
             "device.attributes.all(", "{\"a\": 1}.all(", "{\"a\": 1, \"b\": 2}.all(",
             "device.attributes[device.driver].exists(k, v,"]

EXTRA = [
    # A version attribute that is not semver fails evaluation before the expression runs.
    ("device.driver == \"bad.example.com\"",
     {"driver": "bad.example.com", "attributes": {"v": {"version": "1.2"}}}),
    ("device.attributes[\"bad.example.com\"].v == semver(\"1.2.0\")",
     {"driver": "bad.example.com", "attributes": {"v": {"version": "v1.2.0"}}}),
    # A domain-qualified attribute and a bare one naming the same attribute.
    ("device.attributes[\"d.example.com\"].a == 1",
     {"driver": "d.example.com", "attributes": {"a": {"int": 1}, "x.example.com/a": {"int": 2}}}),
    ("device.attributes[\"x.example.com\"].a == 2 && device.attributes[\"d.example.com\"].a == 1",
     {"driver": "d.example.com", "attributes": {"a": {"int": 1}, "x.example.com/a": {"int": 2}}}),
    # A name splits at its first '/': domain "a.example.com", id "b/c".
    ("device.attributes[\"a.example.com\"][\"b/c\"] == 1",
     {"driver": "d.example.com", "attributes": {"a.example.com/b/c": {"int": 1}}}),
    ("device.capacity[\"a.example.com\"][\"b/c\"].isInteger()",
     {"driver": "d.example.com", "capacity": {"a.example.com/b/c": {"value": "3"}}}),
    # A device without a driver: bare names land in the "" domain.
    ("device.attributes[\"\"].a == 1", {"driver": "", "attributes": {"a": {"int": 1}}}),
    ("device.allowMultipleAllocations", {"driver": "m.example.com", "allowMultipleAllocations": False}),
    # Capacity written with a fraction: upstream keeps the parsed form (int64Amount{10, -1}), which
    # isInteger() reports; berth's api::Quantity keeps the value only (a known difference).
    ("device.capacity[\"q.example.com\"].m.isInteger()",
     {"driver": "q.example.com", "capacity": {"m": {"value": "1.0"}}}),
    ("device.capacity[\"q.example.com\"].m.isInteger()",
     {"driver": "q.example.com", "capacity": {"m": {"value": "2"}}}),
    # NaN is not ordered: an error, not false (found by the differential's mutants).
    ("0.0 / 0.0 > 1000.0", EMPTY),
    ("1 <= 0.0 / 0.0", EMPTY),
    ("0.0 / 0.0 == 0.0 / 0.0", EMPTY),
]


def cel_string(s):
    """A CEL string literal for s."""
    return json.dumps(s, ensure_ascii=False)


def nested(depth, open_, inner):
    return open_ * depth + inner + ")" * depth


def built(pattern_expr, fn="matches", subject='"a"'):
    """The pattern assembled at run time (so the error is the evaluation's, not the checker's)."""
    return f'cel.bind(p, {pattern_expr}, {subject}.{fn}(p))'


def repeated(var, piece, times):
    return " + ".join([var] * times)


# Regular expressions (issue 26): Go's syntax and error texts, its nesting limit, and subjects
# and patterns that made a backtracking engine crash or stall. Each is evaluated on the GPU only.
MODEL = 'device.attributes["gpu.example.com"].model'
REGEX = [
    # Go syntax, RE2 edge cases.
    f'{MODEL}.matches("^\\\\pL\\\\d+$")',
    f'{MODEL}.matches("^\\\\p{{Latin}}")',
    '"αβγ".matches("^\\\\p{Greek}+$")',
    '"αβγ".matches("^\\\\P{Greek}")',
    f'{MODEL}.matches("(?i)^A100$")',
    '"a\\nb".matches("a.b")',
    '"a\\nb".matches("(?s)a.b")',
    '"a\\nb".matches("(?m)^b$")',
    '"a\\nb".matches("^b$")',
    '"a\\n".matches("a$")',
    '"aaa".find("(?U)a+") == "a"',
    '"aaa".find("a+?") == "a"',
    f'{MODEL}.find("(?P<n>[0-9]+)") == "100"',
    f'{MODEL}.find("(?<n>[0-9]+)") == "100"',
    '"a.b*c".matches("^\\\\Qa.b*c\\\\E$")',
    '"axb".matches("^\\\\Qa.b\\\\E$")',
    f'{MODEL}.matches("^[[:alpha:]][[:digit:]]+$")',
    f'{MODEL}.matches("\\\\Aa100\\\\z")',
    '"GPU-2f1c-Ünï".matches("(?i)ünÏ$")',
    '"K".matches("(?i)\\u212a")',
    '"ab".findAll("") == ["", "", ""]',
    '"baaé".findAll("a*") == ["", "aa", ""]',
    '"a1b22c333".findAll("[0-9]*", 3)',
    '"a1b22c333".findAll("[0-9]+", 0).size() == 0',
    '"a1b22c333".findAll("[0-9]+", -1).size() == 3',
    '"kKk".findAll("\\\\B").size() == 0',
    '"x\\u212a\\u212ay".findAll("\\\\B").size()',
    # Constant invalid patterns: matches() is rejected by cel-go's validator, find()/findAll()
    # when the program is planned.
    '"a".matches("\\\\C")',
    '"a".find("\\\\C") == ""',
    '"a".findAll("a**").size() == 0',
    '"a".find("(?<n!>a)") == ""',
    '"a".find("x{1001}") == ""',
]
# Each of Go's error codes, for a pattern built at run time, from matches() and from find().
INVALID = ["(ab", "ab)", "[a", "[z-a]", "[[:foo:]]", "\\p{Foo}", "a**", "a*+", "a++", "*", "x{2}{3}",
           "a{1001}", "a{2,1}", "x{2,1}?", "x*{2,1}", "x{99999999999}", "(?<m>a)(?P=n)", "(a{100}){100}", "\\8", "\\Z", "\\C", "a\\C", "\\Z\\C", "\\e", "\\x{110000}",
           "(?=a)", "(?!a)", "(?<=a)", "(?x)a", "(?P=n)", "(?P<n!>a)", "(?<n!>a)", "(?<>a)", "(?<a>x",
           "(?P<name>", "(?i", "a\\"]
for pattern in INVALID:
    REGEX.append(built(cel_string(pattern)))
    REGEX.append(built(cel_string(pattern), fn="find") + ' == ""')
# The nesting limit: Go's parse tree may be 1000 high (999 groups around a literal), built as a
# constant and at run time from ten-character pieces; a syntax error before the limit wins.
for depth in (999, 1000):
    pattern = nested(depth, "(", "a")
    REGEX.append(f'"a".matches({cel_string(pattern)})')
    REGEX.append(f'"a".find({cel_string(pattern)}) == "a"')
for depth in (499, 500):
    REGEX.append(built(cel_string(nested(depth, "(a|", "b"))))
REGEX.append(built(cel_string(nested(5000, "(?:", "a"))))
REGEX.append(built(cel_string(nested(1001, "(?:x", ""))))
REGEX.append(built(cel_string("a**" + nested(1000, "(", "a"))))
REGEX.append(built(cel_string(nested(1000, "(", "a") + "a**")))
for times in (9, 10, 11):
    REGEX.append('cel.bind(o, "((((((((((", cel.bind(c, "))))))))))", '
                 f'cel.bind(oo, {repeated("o", "", 10)}, cel.bind(cc, {repeated("c", "", 10)}, '
                 f'cel.bind(ooo, {repeated("oo", "", times)}, cel.bind(ccc, {repeated("cc", "", times)}, '
                 '"a".matches(ooo + "a" + ccc)))))))')
    REGEX.append('cel.bind(o, "((((((((((", cel.bind(c, "))))))))))", '
                 f'cel.bind(oo, {repeated("o", "", 10)}, cel.bind(cc, {repeated("c", "", 10)}, '
                 f'cel.bind(ooo, {repeated("oo", "", times)}, cel.bind(ccc, {repeated("cc", "", times)}, '
                 '"a".findAll(ooo + "a" + ccc).size() == 1))))))')
# Long subjects and backtracking patterns: a 40,000-character string built with cel.bind.
LONG = ('cel.bind(a, "xxxxxxxxxxxxxxxxxxxx", cel.bind(b, ' + repeated("a", "", 10) + ', cel.bind(d, '
        + repeated("b", "", 10) + ', cel.bind(e, ' + repeated("d", "", 20) + ', {})))))')
for body in ['e.matches(".*x")', 'e.matches(".*y")', 'e.matches("^(x|xx)*y$")', 'e.matches("(x+x+)+y")',
             'e.find("x{1000}$").size() == 1000', 'e.findAll("x{1,999}").size()',
             'e.findAll("(x|xx)*?", 5).size()', 'e.matches("^(?:x?){1000}x{1000}$")']:
    REGEX.append(LONG.format(body))
for n in (40, 46):
    REGEX.append(f'"{"a" * n}".matches("^(a|aa)*c$")')
    REGEX.append(f'"{"a" * n}c".matches("^(a|aa)*c$")')
    REGEX.append(f'"{"a" * n}".find("(a*)*b") == ""')
# RE2 bounds a program by memory (8 MB), Go by instruction count: a known difference.
REGEX.append(built(cel_string("\\pL{1000}")))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    lines = []
    for raw in EXPRS.strip("\n").split("\n"):
        if not raw.strip() or raw.startswith("# "):
            continue
        for dev in DEVICES:
            case = {"expr": raw, "device": dev}
            if any(m in raw for m in UNORDERED):
                case["unordered"] = True
            lines.append(json.dumps(case, ensure_ascii=False))
    # Recursion limits: 250 nested expressions, and operations nested 250 deep.
    for expr in ["(" * 249 + "true" + ")" * 249, "(" * 250 + "true" + ")" * 250,
                 " + ".join(["1"] * 250) + " > 0", " + ".join(["1"] * 251) + " > 0",
                 "device" + ".driver" * 250 + " == 1", "[" * 250 + "]" * 250 + " == []"]:
        lines.append(json.dumps({"expr": expr, "device": GPU}, ensure_ascii=False))
    # Size-growing functions near the cost limit (1,000,000), on both sides of it: t is 1,002,000
    # characters (s, 1,000 x's, inserted around each of its own characters).
    s = '"' + "x" * 1000 + '"'
    t = "cel.bind(s, " + s + ", cel.bind(t, s.replace('', s), %s))"
    for body in ["t.replace('x', 'yy').size() == 2004000",
                 "cel.bind(u, t.replace('x', 'xxxxx'), u.replace('x', 'y').size() > 0)",
                 "cel.bind(u, t.replace('x', 'xx'), u.replace('x', 'y', 3).size() > 0)",
                 "(t + t).size() == 2004000",
                 "(t + t + t + t + t).size() > 0",
                 "t.upperAscii().lowerAscii() == t",
                 "t.split('').size() == 1002000",
                 "lists.range(2000).map(i, s).join().size() == 2000000",
                 "lists.range(2000).map(i, s).join(',').size() > 0",
                 "lists.range(5000).map(i, s).join().size() > 0",
                 "[t, t, t].join('-').size() > 0",
                 "lists.range(999000).size() > 0",
                 "lists.range(1000000).size() > 0",
                 "(lists.range(400000) + lists.range(400000)).size() == 800000",
                 "lists.range(50000).map(i, t).size() == 50000",
                 "lists.range(50000).all(i, type(t) == string)",
                 "[t, t, t, t].map(x, [x, x]).flatten().size() == 8",
                 "cel.bind(b, bytes(t), lists.range(50000).map(i, b).size() == 50000)"]:
        lines.append(json.dumps({"expr": t % body, "device": GPU}, ensure_ascii=False))
    # map() and filter() accumulate in place in berth; results and costs stay cel-go's.
    for expr in ["lists.range(1000).map(x, x * 2).filter(y, y % 3 == 0).size() == 334",
                 "[[1], [2, 3]].map(l, l.map(x, x + 1)) == [[2], [3, 4]]",
                 "cel.bind(l, [1, 2], l.map(x, x) + l.map(x, x) == [1, 2, 1, 2] && l == [1, 2])",
                 "[1, 0, 2].map(x, 4 / x).size() == 3",
                 "[1, 2, 3].map(x, x > 1, [x]).size() == 2",
                 "[1, 2, 3].transformList(i, x, i > 0, x * 10) == [20, 30]",
                 # cel-go initialises an accumulator (a cel.bind variable) when first read.
                 "cel.bind(x, lists.range(1000).map(i, i), true)",
                 "cel.bind(x, lists.range(1000).map(i, i), false && x.size() > 0)",
                 "cel.bind(x, lists.range(1000).map(i, i), x.size() > 0 && x.size() > 1)",
                 "cel.bind(x, 1 / 0 == 1, true)",
                 "cel.bind(x, [1], cel.bind(y, x + x, [1].all(i, y.size() == 2)))"]:
        lines.append(json.dumps({"expr": expr, "device": GPU}))
    # Long chains of && and ||: cel-go balances them; the terms keep their order, so results,
    # errors and costs are those of the chain.
    for op, last in [(" && ", "true"), (" || ", "false")]:
        lines.append(json.dumps({"expr": op.join(["true" if op == " && " else "false"] * 9000),
                                 "device": GPU}))
        terms = ['device.driver != ""', 'device.attributes["x"].y == 1', "1 / 0 == 1"]
        lines.append(json.dumps({"expr": op.join((terms * 1200)[:3000] + [last]),
                                 "device": GPU}))
    for expr, dev in EXTRA:
        lines.append(json.dumps({"expr": expr, "device": dev}, ensure_ascii=False))
    for expr in REGEX:
        lines.append(json.dumps({"expr": expr, "device": GPU}, ensure_ascii=False))
    with open(os.path.join(here, "corpus.jsonl"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"test/cel/corpus.jsonl: {len(lines)} cases")


if __name__ == "__main__":
    main()
