#include "test/cel/random_expr.h"

#include <cstdio>
#include <iterator>
#include <vector>

namespace berth::cel::testing {
namespace {

const char* kDomains[] = {"gpu.example.com", "nic.example.com", "other.example.com",
                          "none.example.com"};
const char* kIntAttrs[] = {"cores", "numa", "rack", "speed"};
const char* kStringAttrs[] = {"model", "family", "vendor", "uuid"};
const char* kBoolAttrs[] = {"mig", "sriov"};
const char* kStrings[] = {"\"\"",  "\"a100\"",  "\"gpu\"", "\"example\"",        "\"ACME\"",
                          "\"é\"", "\"a-b-c\"", "\"0\"",   "\"gpu.example.com\""};
const char* kInts[] = {"0",
                       "1",
                       "-1",
                       "2",
                       "7",
                       "100",
                       "108",
                       "9223372036854775807",
                       "-9223372036854775808",
                       "4611686018427387904"};
const char* kVersions[] = {"\"1.2.3\"", "\"2.0.0-beta.1\"", "\"1.10.0\"", "\"0.0.1-rc.2+b\"",
                           "\"2.0.0\""};
const char* kQuantities[] = {"\"40Gi\"", "\"300\"", "\"1500m\"", "\"8\"",     "\"10G\"",
                             "\"0\"",    "\"-1k\"", "\"1.0\"",   "\"1000m\"", "\"0.5Ki\"",
                             "\"1u\"",   "\"1n\"",  "\"2E\"",    "\"1e3\"",   "\"-1.5k\""};
// Go's regexp syntax, including spellings RE2 and Go disagree on (`(?<n>`, `\C`).
const char* kRegexes[] = {"\"^a\"",          "\"(?i)A1\"",
                          "\"[0-9]+\"",      "\"example\\\\.com$\"",
                          "\"^$\"",          "\"(a|g)p?u\"",
                          "\"^\\\\pL\"",     "\"(?<n>a)\\\\d\"",
                          "\"\\\\Q.\\\\E\"", "\"[[:alpha:]]+$\"",
                          "\"(?s).\"",       "\"(a|aa)*c$\"",
                          "\"\\\\C\"",       "\"a**\""};

template <size_t N>
std::string From(const char* (&arr)[N], int i) {
  return arr[static_cast<size_t>(i) % N];
}

}  // namespace

std::string RandomExpr::Bool(int depth) {
  int n = depth <= 0 ? 4 : 30;
  switch (Pick(n)) {
    case 0:
      return Pick(2) ? "true" : "false";
    case 1:
      return "device.attributes[\"" + From(kDomains, Pick(4)) + "\"]." + From(kBoolAttrs, Pick(2));
    case 2:
      return "device.allowMultipleAllocations";
    case 3:
      return "has(device.attributes[\"" + From(kDomains, Pick(4)) + "\"]." +
             From(kStringAttrs, Pick(4)) + ")";
    case 4: {
      const char* ops[] = {"==", "!=", "<", "<=", ">", ">="};
      return Int(depth - 1) + " " + ops[Pick(6)] + " " + Int(depth - 1);
    }
    case 5: {
      const char* ops[] = {"==", "!=", "<", ">="};
      return String(depth - 1) + " " + ops[Pick(4)] + " " + String(depth - 1);
    }
    case 6:
      return "(" + Bool(depth - 1) + " && " + Bool(depth - 1) + ")";
    case 7:
      return "(" + Bool(depth - 1) + " || " + Bool(depth - 1) + ")";
    case 8:
      return "!" + Bool(depth - 1);
    case 9: {
      const char* fns[] = {"startsWith", "endsWith", "contains", "matches"};
      return String(depth - 1) + "." + fns[Pick(4)] + "(" + String(depth - 1) + ")";
    }
    case 10:
      return "(" + Bool(depth - 1) + " ? " + Bool(depth - 1) + " : " + Bool(depth - 1) + ")";
    case 11:
      return String(depth - 1) + " in [" + From(kStrings, Pick(9)) + ", " + String(depth - 1) + "]";
    case 12: {
      const char* fns[] = {"isGreaterThan", "isLessThan"};
      std::string lhs = Pick(2) ? "device.attributes[\"" + From(kDomains, Pick(2)) + "\"]." +
                                      (Pick(2) ? "driverVersion" : "fw")
                                : "semver(" + From(kVersions, Pick(5)) + ")";
      return lhs + "." + fns[Pick(2)] + "(semver(" + From(kVersions, Pick(5)) + "))";
    }
    case 13: {
      const char* fns[] = {"isGreaterThan", "isLessThan"};
      std::string lhs = Pick(2) ? "device.capacity[\"" + From(kDomains, Pick(2)) + "\"]." +
                                      (Pick(2) ? "memory" : "vfs")
                                : "quantity(" + From(kQuantities, Pick(7)) + ")";
      return lhs + "." + fns[Pick(2)] + "(quantity(" + From(kQuantities, Pick(7)) + "))";
    }
    case 14:
      return "[" + Int(depth - 1) + ", " + Int(depth - 1) + "].exists(x, x " +
             (Pick(2) ? "> " : "== ") + Int(depth - 1) + ")";
    case 15:
      return "[" + String(depth - 1) + ", " + String(depth - 1) + "].all(s, " +
             (Pick(2) ? "s.size() > 1" : "s != " + String(depth - 1)) + ")";
    case 16:
      return "cel.bind(v, " + Int(depth - 1) + ", v * v >= v)";
    case 17:
      return "device.attributes[\"" + From(kDomains, Pick(4)) + "\"].?" +
             From(kBoolAttrs, Pick(2)) + ".orValue(" + Bool(depth - 1) + ")";
    case 19:
      return "quantity(" + From(kQuantities, Pick(15)) + ").isInteger()";
    case 20: {
      const char* ops[] = {"==", "<", ">="};
      return "quantity(" + From(kQuantities, Pick(15)) + ").compareTo(quantity(" +
             From(kQuantities, Pick(15)) + ")) " + ops[Pick(3)] + " " + std::to_string(Pick(3) - 1);
    }
    case 21:
      return "device.attributes[\"" + From(kDomains, Pick(4)) + "\"].?" +
             From(kStringAttrs, Pick(4)) + ".hasValue()";
    case 22:
      return "[" + Int(depth - 1) + ", " + Int(depth - 1) + "].exists(i, v, i < v)";
    case 23:
      return "[" + Int(depth - 1) + ", " + Int(depth - 1) + ", " + Int(depth - 1) +
             "].sort()[0] <= " + Int(depth - 1);
    case 24:
      return "sets.intersects([" + Int(depth - 1) + "], [" + Int(depth - 1) + ", 1])";
    case 25:
      return "{" + String(depth - 1) + ": " + Int(depth - 1) + "}[" + String(depth - 1) + "] == 1";
    case 26:
      return String(depth - 1) + ".matches(" +
             From(kRegexes, Pick(static_cast<int>(std::size(kRegexes)))) + ")";
    case 27:
      return "[" + String(depth - 1) + ", " + String(depth - 1) + "].includes(" +
             String(depth - 1) + ")";
    case 28:
      return "quantity(" + From(kQuantities, Pick(15)) + ").add(" + Int(depth - 1) +
             ").isGreaterThan(quantity(" + From(kQuantities, Pick(15)) + "))";
    default:
      return "isSemver(" + String(depth - 1) + ")";
  }
}

std::string RandomExpr::Int(int depth) {
  int n = depth <= 0 ? 3 : 15;
  switch (Pick(n)) {
    case 0:
      return From(kInts, Pick(10));
    case 1:
      return "device.attributes[\"" + From(kDomains, Pick(4)) + "\"]." + From(kIntAttrs, Pick(4));
    case 2:
      return std::to_string(Pick(20));
    case 3: {
      const char* ops[] = {"+", "-", "*", "/", "%"};
      return "(" + Int(depth - 1) + " " + ops[Pick(5)] + " " + Int(depth - 1) + ")";
    }
    case 4:
      return "size(" + String(depth - 1) + ")";
    case 5:
      return String(depth - 1) + ".indexOf(" + String(depth - 1) + ")";
    case 6:
      return "quantity(" + From(kQuantities, Pick(7)) + ").asInteger()";
    case 7:
      return "[" + Int(depth - 1) + ", " + Int(depth - 1) + "].sum()";
    case 8:
      return "[" + Int(depth - 1) + ", " + Int(depth - 1) + ", " + Int(depth - 1) + "]." +
             (Pick(2) ? "min()" : "max()");
    case 9:
      return "int(" + String(depth - 1) + ")";
    case 10:
      return "semver(" + From(kVersions, Pick(5)) + ")." + (Pick(2) ? "major()" : "minor()");
    case 11:
      return String(depth - 1) + ".lastIndexOf(" + String(depth - 1) + ")";
    case 12:
      return "[" + Int(depth - 1) + ", " + Int(depth - 1) + "].reverse()[0]";
    case 13:
      return "quantity(" + From(kQuantities, Pick(15)) + ").asInteger()";
    default:
      return "-" + Int(depth - 1);
  }
}

std::string RandomExpr::String(int depth) {
  int n = depth <= 0 ? 3 : 12;
  switch (Pick(n)) {
    case 0:
      return From(kStrings, Pick(9));
    case 1:
      return "device.attributes[\"" + From(kDomains, Pick(4)) + "\"]." +
             From(kStringAttrs, Pick(4));
    case 2:
      return "device.driver";
    case 3:
      return "(" + String(depth - 1) + " + " + String(depth - 1) + ")";
    case 4:
      return String(depth - 1) + (Pick(2) ? ".lowerAscii()" : ".upperAscii()");
    case 5:
      return String(depth - 1) + ".substring(" + std::to_string(Pick(4)) + ")";
    case 6:
      return String(depth - 1) + ".charAt(" + std::to_string(Pick(4)) + ")";
    case 7:
      return "string(" + Int(depth - 1) + ")";
    case 8:
      return String(depth - 1) + ".replace(\"" + (Pick(2) ? "-" : "a") + "\", \"_\")";
    case 10:
      return String(depth - 1) + ".trim()";
    case 11:
      return String(depth - 1) + ".split(\".\")[0]";
    default:
      return "[" + String(depth - 1) + ", \"x\"].join(\"/\")";
  }
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace berth::cel::testing
