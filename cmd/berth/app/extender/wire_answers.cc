// The three answers berth reads from an extender (ExtenderFilterResult, HostPriorityList,
// ExtenderBindingResult), decoded from the event stream of api/json/events.h: only what the
// result holds is kept (node names, reasons, scores), never a tree of the document, so a big
// answer costs memory in proportion to its decoded result (a 50 MB answer echoing full Nodes
// took 1.8 GB as an api::Value tree).
//
// The decoding keeps the tree-based decoder's results and messages exactly (the differential
// test in test/cmd/berth/app/extender/wire_test.cc holds them side by side): a syntax error
// anywhere wins over everything else; then the fields are checked in the same order; a member
// is found as FindFold finds it in an object whose duplicate keys were folded (encoding/json's
// rule: the last value wins, at the key's first position).

#include <cctype>
#include <deque>
#include <unordered_map>

#include "api/json/events.h"
#include "cmd/berth/app/extender/wire.h"

namespace berth::extenders {
namespace {

using api::Value;
using Type = Value::Type;

// Value::TypeName's words, for a type seen in the stream.
std::string_view TypeNameOf(Type t) {
  static const Value kOf[] = {
      Value(),           Value::Bool(false), Value::Int(0),      Value::Double(0),
      Value::String(""), Value::MakeArray(), Value::MakeObject()};
  return kOf[static_cast<int>(t)].TypeName();
}

Error Want(std::string_view field, std::string_view want, Type got) {
  return Error{std::string(field) + ": want " + std::string(want) + ", got " +
               std::string(TypeNameOf(got))};
}

// One member's value as far as the answers need it: its type, and the text or integer of a
// string or integer.
struct Leaf {
  Type type = Type::kNull;
  std::string text;
  int64_t integer = 0;
};

// FindFold(object, key) over members that arrive one at a time: the last member named exactly
// `key`, else the first other spelling that folds to it (its last value).
template <typename T>
class FoldSlot {
 public:
  // The state for a member named `name` (reset: the last value wins), or nullptr when FindFold
  // could never pick this member.
  T* For(std::string_view name, std::string_view key) {
    if (name == key) {
      exact_.emplace();
      return &*exact_;
    }
    if (exact_ || !EqualFold(name, key) || (fold_ && fold_key_ != name)) return nullptr;
    fold_key_ = std::string(name);
    fold_.emplace();
    return &*fold_;
  }
  T* Picked() { return exact_ ? &*exact_ : fold_ ? &*fold_ : nullptr; }

 private:
  std::optional<T> exact_;
  std::string fold_key_;
  std::optional<T> fold_;
};

// NodeNames: an array of strings, or null.
struct NamesField {
  Type type = Type::kNull;
  std::vector<std::string> names;
  std::optional<Type> bad_item;  // the first item that is not a string
};

// Nodes.items: the items' metadata.name, or the first item without one.
struct ItemsField {
  Type type = Type::kNull;
  std::vector<std::string> names;
  bool bad_item = false;
};

// Nodes: a NodeList object, or null.
struct NodesField {
  Type type = Type::kNull;
  FoldSlot<ItemsField> items;
};

// FailedNodes / FailedAndUnresolvableNodes: node name -> reason, in first-position order.
struct FailedField {
  Type type = Type::kNull;
  std::vector<std::pair<std::string, Leaf>> members;
  std::unordered_map<std::string, size_t> position;
};

struct FilterFields {
  FoldSlot<NamesField> node_names;
  FoldSlot<NodesField> nodes;
  FoldSlot<FailedField> failed;
  FoldSlot<FailedField> unresolvable;
  FoldSlot<Leaf> error;
};

// One HostPriorityList item.
struct PriorityItem {
  FoldSlot<Leaf> host;
  FoldSlot<Leaf> score;
};

enum class Doc { kFilterResult, kHostPriorityList, kBindingResult };

// Where the next value goes.
enum class Dest : uint8_t {
  kSkip,
  kRoot,
  kNames,     // NamesField
  kNodes,     // NodesField
  kItems,     // ItemsField
  kItem,      // an element of Nodes.items (frame's ItemsField)
  kMeta,      // an item's metadata (the item frame)
  kFailed,    // FailedField
  kLeaf,      // Leaf
  kPriority,  // an element of the HostPriorityList
};

// An open object or array and where its children go.
struct Frame {
  Dest self = Dest::kSkip;  // what this container is
  bool object = false;
  Dest child = Dest::kSkip;    // where the next child goes (set by Key in objects)
  void* slot = nullptr;        // the container's own state (by `self`)
  void* child_slot = nullptr;  // the next child's state
  // An element of Nodes.items: its last metadata (an object?) and that metadata's last name.
  bool meta_object = false;
  bool name_ok = false;
  Leaf name;
  // An element of the HostPriorityList.
  PriorityItem* priority = nullptr;
};

class AnswerReader final : public api::json::JsonHandler {
 public:
  explicit AnswerReader(Doc doc) : doc_(doc) {}

  bool Null() override { return Scalar(Type::kNull, {}, 0); }
  bool Bool(bool) override { return Scalar(Type::kBool, {}, 0); }
  bool Int(int64_t i) override { return Scalar(Type::kInt, {}, i); }
  bool Double(double) override { return Scalar(Type::kDouble, {}, 0); }
  bool String(std::string_view s) override { return Scalar(Type::kString, s, 0); }
  bool StartObject() override { return Open(true); }
  bool StartArray() override { return Open(false); }
  bool EndObject() override { return Close(); }
  bool EndArray() override { return Close(); }

  bool Key(std::string_view key) override {
    Frame& f = frames_.back();
    f.child = Dest::kSkip;
    f.child_slot = nullptr;
    auto to = [&](Dest d, void* slot) {
      if (slot == nullptr) return;
      f.child = d;
      f.child_slot = slot;
    };
    switch (f.self) {
      case Dest::kRoot:
        if (doc_ == Doc::kFilterResult) {
          to(Dest::kNames, filter_.node_names.For(key, "NodeNames"));
          to(Dest::kNodes, filter_.nodes.For(key, "Nodes"));
          to(Dest::kFailed, filter_.failed.For(key, "FailedNodes"));
          to(Dest::kFailed, filter_.unresolvable.For(key, "FailedAndUnresolvableNodes"));
          to(Dest::kLeaf, filter_.error.For(key, "Error"));
        } else if (doc_ == Doc::kBindingResult) {
          to(Dest::kLeaf, filter_.error.For(key, "Error"));
        }
        break;
      case Dest::kNodes:
        to(Dest::kItems, static_cast<NodesField*>(f.slot)->items.For(key, "items"));
        break;
      case Dest::kItem:
        if (key == "metadata") {  // Find, not FindFold
          f.meta_object = false;
          f.name_ok = false;
          f.name = Leaf{};
          f.child = Dest::kMeta;
        }
        break;
      case Dest::kMeta:
        if (key == "name") {
          Frame& item = frames_[frames_.size() - 2];
          item.name = Leaf{};
          f.child = Dest::kLeaf;
          f.child_slot = &item.name;
        }
        break;
      case Dest::kFailed: {
        auto* field = static_cast<FailedField*>(f.slot);
        auto [it, added] = field->position.emplace(std::string(key), field->members.size());
        if (added) {
          field->members.emplace_back(std::string(key), Leaf{});
        } else {
          field->members[it->second].second = Leaf{};
        }
        f.child = Dest::kLeaf;
        f.child_slot = &field->members[it->second].second;
        break;
      }
      case Dest::kPriority:
        to(Dest::kLeaf, f.priority->host.For(key, "Host"));
        to(Dest::kLeaf, f.priority->score.For(key, "Score"));
        break;
      default:
        break;
    }
    return true;
  }

  // The decoded answer (once, after a successful read: the names move out).
  Result<FilterResult> Filter();
  Result<std::vector<HostPriority>> Priorities();
  Result<std::string> Binding();

 private:
  // Where the value about to start goes.
  std::pair<Dest, void*> Next() const {
    if (frames_.empty()) return {root_seen_ ? Dest::kSkip : Dest::kRoot, nullptr};
    const Frame& f = frames_.back();
    return {f.child, f.child_slot};
  }

  // A value of type `t` arrives at `d`: record its type (and, for arrays' items, check it).
  void Arrive(Dest d, void* slot, Type t) {
    switch (d) {
      case Dest::kRoot:
        root_seen_ = true;
        root_type_ = t;
        break;
      case Dest::kNames:
        static_cast<NamesField*>(slot)->type = t;
        break;
      case Dest::kNodes:
        static_cast<NodesField*>(slot)->type = t;
        break;
      case Dest::kItems:
        static_cast<ItemsField*>(slot)->type = t;
        break;
      case Dest::kFailed:
        static_cast<FailedField*>(slot)->type = t;
        break;
      case Dest::kLeaf:
        static_cast<Leaf*>(slot)->type = t;
        break;
      case Dest::kMeta:
        frames_.back().meta_object = t == Type::kObject;
        break;
      default:
        break;
    }
  }

  bool Scalar(Type t, std::string_view s, int64_t i) {
    auto [d, slot] = Next();
    Arrive(d, slot, t);
    if (d == Dest::kLeaf) {
      auto* leaf = static_cast<Leaf*>(slot);
      leaf->text.assign(s);
      leaf->integer = i;
    }
    if (!frames_.empty()) Child(t, s);
    return true;
  }

  // An array's child (a scalar, or a container about to open) of type t.
  void Child(Type t, std::string_view s) {
    Frame& f = frames_.back();
    if (f.object) return;
    switch (f.self) {
      case Dest::kNames: {
        auto* field = static_cast<NamesField*>(f.slot);
        if (t == Type::kString) {
          if (!field->bad_item) field->names.emplace_back(s);
        } else if (!field->bad_item) {
          field->bad_item = t;
        }
        break;
      }
      case Dest::kItems:
        if (t != Type::kObject) static_cast<ItemsField*>(f.slot)->bad_item = true;
        break;
      case Dest::kRoot:
        if (doc_ == Doc::kHostPriorityList && t != Type::kObject && !bad_priority_) {
          bad_priority_ = t;
          bad_priority_at_ = priorities_.size();
        }
        break;
      default:
        break;
    }
  }

  bool Open(bool object) {
    auto [d, slot] = Next();
    const Type t = object ? Type::kObject : Type::kArray;
    Arrive(d, slot, t);
    if (!frames_.empty()) Child(t, {});
    Frame f;
    f.object = object;
    // The container's children are read only where the answer's shape has them.
    switch (d) {
      case Dest::kRoot:
        if ((doc_ == Doc::kHostPriorityList) != object) f.self = Dest::kRoot;
        if (!object) f.child = Dest::kPriority;
        break;
      case Dest::kNames:
        if (!object) f.self = Dest::kNames;
        break;
      case Dest::kNodes:
        if (object) f.self = Dest::kNodes;
        break;
      case Dest::kItems:
        if (!object) {
          f.self = Dest::kItems;
          f.child = Dest::kItem;
        }
        break;
      case Dest::kItem:
        if (object) f.self = Dest::kItem;
        break;
      case Dest::kMeta:
        if (object) f.self = Dest::kMeta;
        break;
      case Dest::kFailed:
        if (object) f.self = Dest::kFailed;
        break;
      case Dest::kPriority:
        if (object) {
          f.self = Dest::kPriority;
          priorities_.emplace_back();
          f.priority = &priorities_.back();
        }
        break;
      default:
        break;
    }
    if (f.self == Dest::kSkip) f.child = Dest::kSkip;
    f.slot = d == Dest::kItem ? frames_.back().slot : slot;  // an item's: the ItemsField
    frames_.push_back(std::move(f));
    return true;
  }

  bool Close() {
    Frame& f = frames_.back();
    if (f.self == Dest::kItem) {
      auto* items = static_cast<ItemsField*>(f.slot);
      if (f.meta_object && f.name_ok && !items->bad_item) {
        items->names.push_back(std::move(f.name.text));
      } else if (!(f.meta_object && f.name_ok)) {
        items->bad_item = true;
      }
    } else if (f.self == Dest::kMeta) {
      Frame& item = frames_[frames_.size() - 2];
      item.name_ok = item.name.type == Type::kString && !item.name.text.empty();
    }
    frames_.pop_back();
    return true;
  }

  const Doc doc_;
  std::deque<Frame> frames_;  // a deque: Open keeps pointers to frames below the top
  bool root_seen_ = false;
  Type root_type_ = Type::kNull;
  FilterFields filter_;
  std::deque<PriorityItem> priorities_;
  std::optional<Type> bad_priority_;  // the first HostPriorityList item that is not an object
  size_t bad_priority_at_ = 0;        // ... after this many object items
};

Result<std::optional<std::vector<std::string>>> Names(NamesField* f) {
  std::optional<std::vector<std::string>> out;
  if (f == nullptr || f->type == Type::kNull) return out;
  if (f->type != Type::kArray) return Want("NodeNames", "an array of node names", f->type);
  if (f->bad_item) return Want("NodeNames", "an array of node names", *f->bad_item);
  return std::optional<std::vector<std::string>>(std::move(f->names));
}

Result<std::optional<std::vector<std::string>>> ItemNames(NodesField* f) {
  std::optional<std::vector<std::string>> out;
  if (f == nullptr || f->type == Type::kNull) return out;
  if (f->type != Type::kObject) return Want("Nodes", "a NodeList object", f->type);
  out.emplace();
  ItemsField* items = f->items.Picked();
  if (items == nullptr || items->type == Type::kNull) return out;
  if (items->type != Type::kArray) return Want("Nodes.items", "an array", items->type);
  if (items->bad_item) return Error{"Nodes.items: a node without metadata.name"};
  *out = std::move(items->names);
  return out;
}

Result<std::map<std::string, std::string>> FailedMap(const FailedField* f, std::string_view field) {
  std::map<std::string, std::string> out;
  if (f == nullptr || f->type == Type::kNull) return out;
  if (f->type != Type::kObject) return Want(field, "an object of node name -> reason", f->type);
  for (const auto& [node, reason] : f->members) {
    if (reason.type != Type::kString) {
      return Want(std::string(field) + "." + node, "a string", reason.type);
    }
    out[node] = reason.text;
  }
  return out;
}

Result<std::string> ErrorText(const Leaf* err) {
  if (err == nullptr || err->type == Type::kNull) return std::string();
  if (err->type != Type::kString) return Want("Error", "a string", err->type);
  return err->text;
}

Result<FilterResult> AnswerReader::Filter() {
  if (root_type_ != Type::kObject) {
    return Want("ExtenderFilterResult", "a JSON object", root_type_);
  }
  FilterResult out;
  BERTH_ASSIGN_OR_RETURN(out.node_names, Names(filter_.node_names.Picked()));
  BERTH_ASSIGN_OR_RETURN(out.nodes, ItemNames(filter_.nodes.Picked()));
  BERTH_ASSIGN_OR_RETURN(out.failed_nodes, FailedMap(filter_.failed.Picked(), "FailedNodes"));
  BERTH_ASSIGN_OR_RETURN(out.failed_and_unresolvable_nodes,
                         FailedMap(filter_.unresolvable.Picked(), "FailedAndUnresolvableNodes"));
  BERTH_ASSIGN_OR_RETURN(out.error, ErrorText(filter_.error.Picked()));
  return out;
}

Result<std::vector<HostPriority>> AnswerReader::Priorities() {
  std::vector<HostPriority> out;
  if (root_type_ == Type::kNull) return out;
  if (root_type_ != Type::kArray) return Want("HostPriorityList", "an array", root_type_);
  // Items in order: the first bad one is the error, whether not an object or not a host's score.
  const size_t checked = bad_priority_ ? bad_priority_at_ : priorities_.size();
  for (size_t i = 0; i < checked; ++i) {
    PriorityItem& item = priorities_[i];
    HostPriority hp;
    const Leaf* host = item.host.Picked();
    if (host == nullptr || host->type != Type::kString) {
      return Error{"HostPriorityList: an item without a Host string"};
    }
    hp.host = host->text;
    if (const Leaf* score = item.score.Picked(); score != nullptr && score->type != Type::kNull) {
      if (score->type != Type::kInt) {
        return Want("Score of host \"" + hp.host + "\"", "an integer", score->type);
      }
      hp.score = score->integer;
    }
    out.push_back(std::move(hp));
  }
  if (bad_priority_) return Want("HostPriorityList item", "an object", *bad_priority_);
  return out;
}

Result<std::string> AnswerReader::Binding() {
  if (root_type_ != Type::kObject) {
    return Want("ExtenderBindingResult", "a JSON object", root_type_);
  }
  return ErrorText(filter_.error.Picked());
}

Ok Read(std::string_view body, std::string_view what, AnswerReader& reader) {
  Ok read = api::json::ReadJsonEvents(body, reader);
  if (!read) return Error{"malformed " + std::string(what) + ": " + read.error()};
  return {};
}

}  // namespace

Result<FilterResult> DecodeFilterResult(std::string_view body) {
  AnswerReader reader(Doc::kFilterResult);
  BERTH_RETURN_IF_ERROR(Read(body, "ExtenderFilterResult", reader));
  return reader.Filter();
}

Result<std::vector<HostPriority>> DecodeHostPriorityList(std::string_view body) {
  AnswerReader reader(Doc::kHostPriorityList);
  BERTH_RETURN_IF_ERROR(Read(body, "HostPriorityList", reader));
  return reader.Priorities();
}

Result<std::string> DecodeBindingResult(std::string_view body) {
  AnswerReader reader(Doc::kBindingResult);
  BERTH_RETURN_IF_ERROR(Read(body, "ExtenderBindingResult", reader));
  return reader.Binding();
}

}  // namespace berth::extenders
