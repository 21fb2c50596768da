// fleet: node documents as records, records grouped into classes, srun's
// labelled output read back by task, sinfo's lines.
#include <doctest/doctest.h>

#include <algorithm>

#include "fleet/classes.hpp"
#include "fleet/documents.hpp"
#include "fleet/node_script.hpp"
#include "fleet/slurm.hpp"

using namespace condacuda;
using namespace condacuda::fleet;
using util::Json;

namespace {
struct Doc {
  std::string node = "node1";
  std::optional<std::string> llp;
  std::string driver = "580.65.06";
  std::string gpu = "H100";
  std::string glibc = "2.36";
  int exit_code = 0;
  std::vector<std::pair<std::string, std::string>> findings; // code, severity
  std::string fix;    // each finding's fix ("" : "fix CODE")
  std::string prefix; // the env's, "" : no env object
};

Json doctor_document(const Doc& d) {
  Json node = Json::object();
  node.set("name", d.node);
  node.set("hostname", "host-" + d.node);
  node.set("glibc", d.glibc);
  Json driver = Json::object();
  driver.set("version", d.driver.empty() ? Json() : Json(d.driver));
  driver.set("source", "/proc/driver/nvidia/version");
  node.set("driver", driver);
  Json gpus = Json::array();
  if (!d.gpu.empty()) {
    Json g = Json::object();
    g.set("name", d.gpu);
    g.set("sm", d.gpu == "V100" ? "sm_70" : "sm_90");
    gpus.push(g);
  }
  node.set("gpus", gpus);
  node.set("gpus_source", "/proc/driver/nvidia/gpus");
  node.set("ld_library_path", d.llp ? Json(*d.llp) : Json());
  node.set("system_cuda_folders", Json::array());
  node.set("ld_so_cache_cuda", Json::array());
  Json findings = Json::array();
  for (const auto& [code, severity] : d.findings) {
    Json f = Json::object();
    f.set("code", code);
    f.set("severity", severity);
    f.set("title", code + " title");
    f.set("first_error", code + " error");
    f.set("fix", d.fix.empty() ? "fix " + code : d.fix);
    findings.push(f);
  }
  Json j = Json::object();
  j.set("schema", "condacuda.doctor/1");
  j.set("outcome", d.exit_code ? "problems" : "healthy");
  j.set("exit_code", d.exit_code);
  j.set("node", node);
  j.set("findings", findings);
  if (!d.prefix.empty()) {
    Json env = Json::object();
    env.set("prefix", d.prefix);
    j.set("env", env);
  }
  return j;
}

NodeRecord record(const Doc& d) { return record_from_documents("fallback", doctor_document(d), Json()); }

const NodeClass* class_of(const Fleet& f, const std::string& hostlist) {
  for (const auto& c : f.classes)
    if (c.hostlist == hostlist) return &c;
  return nullptr;
}
} // namespace

TEST_CASE("record: facts and verdict from a doctor document; the driver keyed by branch") {
  Doc d;
  d.llp = "/opt/site/cuda-12.1/lib64";
  d.exit_code = 1;
  d.findings = {{"foreign-hook", "warning"}, {"undefined-symbol", "error"}};
  NodeRecord r = record(d);
  CHECK_FALSE(r.no_answer);
  CHECK(r.node == "node1");
  CHECK(r.facts.driver_branch == 580);
  CHECK(r.facts.gpus == std::vector<std::string>{"H100 (sm_90)"});
  CHECK(r.facts.ld_library_path == "/opt/site/cuda-12.1/lib64");
  REQUIRE(r.verdict.findings.size() == 2);
  CHECK(r.verdict.findings[0].code == "undefined-symbol"); // errors first
  CHECK(r.exit_code() == 1);
}

TEST_CASE("record: an error document, a foreign document and one without node facts give no verdict, with why") {
  Json error = Json::object();
  error.set("schema", "condacuda.error/1");
  error.set("exit_code", 2);
  Json e = Json::object();
  e.set("message", "no env at /shared/envs/torch");
  error.set("error", e);
  NodeRecord r = record_from_documents("gpu7", error, Json());
  REQUIRE(r.no_answer);
  CHECK(r.no_answer->kind == Silence::error);
  CHECK(r.no_answer->reason.find("no env at /shared/envs/torch") != std::string::npos);
  CHECK(r.exit_code() == 2);
  CHECK(r.node == "gpu7");

  Json old = doctor_document({});
  old.set("node", Json());
  r = record_from_documents("gpu8", old, Json());
  REQUIRE(r.no_answer);
  CHECK(r.no_answer->kind == Silence::bad_document);
  CHECK(r.exit_code() == exit_no_answer);

  Json lock = Json::object();
  lock.set("schema", "condacuda.lock/2");
  CHECK(record_from_documents("gpu9", lock, Json()).no_answer->reason.find("condacuda.lock/2") != std::string::npos);
}

TEST_CASE("worse_exit_code: problems over no answer over no GPU over healthy; errors over problems") {
  CHECK(worse_exit_code(0, 1) == 1);
  CHECK(worse_exit_code(exit_no_answer, 0) == exit_no_answer);
  CHECK(worse_exit_code(exit_no_answer, 1) == 1);
  CHECK(worse_exit_code(3, exit_no_answer) == exit_no_answer);
  CHECK(worse_exit_code(1, 2) == 2);
  CHECK(worse_exit_code(70, 2) == 70);
  CHECK(worse_exit_code(0, 99) == 99);
}

TEST_CASE("classify: the seed fleet is two classes, named by hostlist, with the LD_LIBRARY_PATH that tells them apart") {
  Doc ok;
  Doc module;
  module.llp = "/opt/site/cuda-12.1/lib64";
  module.exit_code = 1;
  module.findings = {{"undefined-symbol", "error"}};
  std::vector<NodeRecord> nodes;
  for (const char* n : {"node3", "node1"}) {
    ok.node = n;
    nodes.push_back(record(ok));
  }
  module.node = "node2";
  nodes.push_back(record(module));
  Fleet f = classify(nodes);
  REQUIRE(f.classes.size() == 2);
  CHECK(f.classes[0].hostlist == "node2"); // the worst first
  CHECK(f.classes[0].exit_code == 1);
  CHECK(f.classes[0].verdict == "fails: undefined-symbol");
  CHECK(f.classes[0].next == "fix undefined-symbol");
  CHECK(f.classes[1].hostlist == "node[1,3]");
  CHECK(f.classes[1].verdict == "loads");
  CHECK(f.exit_code == 1);
  REQUIRE(f.differing == std::vector<Fact>{Fact::ld_library_path});
  CHECK(f.classes[0].distinct.at(0).second == "+/opt/site/cuda-12.1/lib64");
  CHECK(f.classes[1].distinct.at(0).second == "unset");
  CHECK_FALSE(f.shared_repair_note); // one failing launch only
}

TEST_CASE("classify: a document without an outcome or with a finding without a code still gives a verdict in words") {
  // Found by tests/fuzz/fuzz_fleet_documents.cpp: both gave a class with an empty verdict.
  Doc one, two;
  one.node = "n1";
  one.exit_code = two.exit_code = 1;
  two.node = "n2";
  two.findings = {{"", "error"}};
  Json no_outcome = doctor_document(one);
  no_outcome.set("outcome", Json());
  Json no_code = doctor_document(two);
  auto fleet = classify({record_from_documents("n1", no_outcome, Json()), record_from_documents("n2", no_code, Json())});
  REQUIRE(fleet.classes.size() == 2);
  std::vector<std::string> verdicts{fleet.classes[0].verdict, fleet.classes[1].verdict};
  std::sort(verdicts.begin(), verdicts.end());
  CHECK(verdicts == std::vector<std::string>{"exit 1", "fails: an error without a code"});
}

TEST_CASE("classify: nodes that judge alike are one class whatever their facts; the facts they do not share are mixed") {
  Doc a, b, c, d;
  a.node = "gpu001";
  b.node = "gpu002";
  b.driver = "580.82.07";
  c.node = "gpu003";
  c.driver = "535.104.05";
  c.exit_code = 1;
  c.findings = {{"driver-too-old", "error"}};
  d.node = "gpu004";
  d.gpu = "V100";
  Fleet f = classify({record(a), record(b), record(c), record(d)});
  REQUIRE(f.classes.size() == 2);
  const NodeClass* loads = class_of(f, "gpu[001-002,004]");
  REQUIRE(loads);
  CHECK(loads->driver_versions == std::vector<std::string>{"580.65.06", "580.82.07"}); // one branch: not mixed
  CHECK(loads->mixed == std::vector<Fact>{Fact::gpus});
  CHECK(f.differing == std::vector<Fact>{Fact::driver, Fact::gpus});
  const NodeClass* old = class_of(f, "gpu003");
  REQUIRE(old);
  CHECK(old->distinct.at(0).second == "535 (535.104.05, /proc/driver/nvidia/version)");
  CHECK(loads->distinct.at(1).second == "mixed: H100 (sm_90) | V100 (sm_70)");
}

TEST_CASE("classify: silent nodes are classes of their own, by reason; a repeated node keeps its last document") {
  Doc ok;
  std::vector<NodeRecord> nodes;
  for (int i = 1; i <= 4; ++i) {
    ok.node = "n" + std::to_string(i);
    nodes.push_back(record(ok));
  }
  nodes.push_back(silent_node("n5", {Silence::unavailable, "drained: disk"}));
  nodes.push_back(silent_node("n6", {Silence::unavailable, "drained: disk"}));
  nodes.push_back(silent_node("n7", {Silence::not_started, "sh: /opt/condacuda: not found"}));
  Doc bad = ok;
  bad.node = "n1";
  bad.exit_code = 1;
  bad.findings = {{"not-found", "error"}};
  nodes.push_back(record(bad));
  Fleet f = classify(nodes);
  CHECK(f.repeated == std::vector<std::string>{"n1"});
  CHECK(f.nodes.size() == 7);
  CHECK(f.answered() == 4);
  REQUIRE(class_of(f, "n[5-6]"));
  CHECK(class_of(f, "n[5-6]")->silent);
  CHECK(class_of(f, "n[5-6]")->exit_code == exit_no_answer);
  CHECK(class_of(f, "n[5-6]")->next.find("--nodes n[5-6]") != std::string::npos);
  REQUIRE(class_of(f, "n7"));
  CHECK(class_of(f, "n7")->verdict == "no answer: not-started");
  CHECK(class_of(f, "n[2-4]"));
  CHECK(class_of(f, "n1")->exit_code == 1);
  CHECK(f.exit_code == 1);
  CHECK(f.classes.front().hostlist == "n1");
}

TEST_CASE("classify: failing classes with different LD_LIBRARY_PATHs get the shared-env note") {
  Doc a, b;
  a.node = "a1";
  a.llp = "/opt/m1/lib";
  a.exit_code = b.exit_code = 1;
  a.findings = b.findings = {{"undefined-symbol", "error"}};
  b.node = "b1";
  b.llp = "/opt/m2/lib";
  Fleet f = classify({record(a), record(b)});
  REQUIRE(f.shared_repair_note);
  CHECK(f.shared_repair_note->find("(2 in a1,b1)") != std::string::npos); // one class, two launches
  CHECK(f.classes.at(0).next == "fix undefined-symbol"); // no single launch to repair in
}

TEST_CASE("records_from_text: one document, JSON Lines with a bad line, a fleet document read again, a broken file") {
  Doc d;
  auto one = records_from_text(doctor_document(d).dump(2), "out/node1.json");
  REQUIRE(one.size() == 1);
  CHECK(one[0].node == "node1");

  Doc e = d;
  e.node = "node2";
  const std::string lines = doctor_document(d).dump(-1) + "\n\n{not json\n" + doctor_document(e).dump(-1) + "\n";
  auto many = records_from_text(lines, "all.jsonl");
  REQUIRE(many.size() == 3);
  CHECK(many[1].node == "all.jsonl:3");
  CHECK(many[1].no_answer->kind == Silence::bad_document);
  CHECK(many[2].node == "node2");

  auto broken = records_from_text(doctor_document(d).dump(2).substr(0, 100), "out/gpu9.json");
  REQUIRE(broken.size() == 1);
  CHECK(broken[0].node == "gpu9");
  CHECK(broken[0].no_answer->kind == Silence::bad_document);

  CHECK(records_from_text("", "out/gpu10.json").at(0).no_answer->kind == Silence::no_document);

  Json fleet_doc = Json::object();
  fleet_doc.set("schema", "condacuda.fleet/1");
  Json nodes = Json::array();
  Json n1 = Json::object();
  n1.set("name", "node1");
  n1.set("doctor", doctor_document(d));
  n1.set("check", Json());
  n1.set("no_answer", Json());
  nodes.push(n1);
  Json n2 = Json::object();
  n2.set("name", "node9");
  n2.set("doctor", Json());
  Json why = Json::object();
  why.set("kind", "unavailable");
  why.set("reason", "drained: disk");
  why.set("exit_code", exit_no_answer);
  n2.set("no_answer", why);
  nodes.push(n2);
  fleet_doc.set("nodes", nodes);
  auto again = records_from_text(fleet_doc.dump(2), "fleet.json");
  REQUIRE(again.size() == 2);
  CHECK_FALSE(again[0].no_answer);
  CHECK(again[1].no_answer->kind == Silence::unavailable);
  CHECK(again[1].no_answer->reason == "drained: disk");

  // Found by tests/fuzz/fuzz_fleet_documents.cpp: a node entry without a name
  // is named by its place, a fleet document without nodes is one bad node,
  // and a file named ".json" names its node by itself; no node is nameless.
  Json unnamed = Json::object();
  Doc nameless;
  nameless.node = "";
  unnamed.set("doctor", doctor_document(nameless));
  Json two = Json::array();
  two.push(n1);
  two.push(unnamed);
  fleet_doc.set("nodes", two);
  auto named = records_from_text(fleet_doc.dump(-1), "out/fleet.json");
  REQUIRE(named.size() == 2);
  CHECK(named[1].node == "fleet:2");
  fleet_doc.set("nodes", Json::object());
  auto empty = records_from_text(fleet_doc.dump(-1), "out/fleet.json");
  REQUIRE(empty.size() == 1);
  CHECK(empty[0].node == "fleet");
  CHECK(empty[0].no_answer->kind == Silence::bad_document);
  CHECK(node_from_file_name("out/.json") == ".json");
}

TEST_CASE("split_srun_output: lines by task label, markers, srun's own messages") {
  const std::string out = "0: condacuda-fleet node node1\n"
                          " 1: condacuda-fleet node node2\n"
                          "0: {\"schema\": \"condacuda.doctor/1\",\n"
                          " 1: {\"a\":\n"
                          "0: \"x\": 1}\n"
                          "0:\n"
                          "0: condacuda-fleet doctor-exit 0\n"
                          " 1: 1}\n"
                          " 1: condacuda-fleet doctor-exit 1\n"
                          "2: condacuda-fleet node node3\n"
                          "2: condacuda-fleet doctor-exit 127\n";
  const std::string err = "2: sh: 3: /opt/c/condacuda: not found\n"
                          "srun: error: node3: task 2: Exited with exit code 127\n";
  SrunOutput s = split_srun_output(out, err);
  REQUIRE(s.tasks.size() == 3);
  CHECK(s.tasks[0].node == "node1");
  CHECK(s.tasks[0].doctor_text == "{\"schema\": \"condacuda.doctor/1\",\n\"x\": 1}\n\n");
  CHECK(s.tasks[0].doctor_exit == 0);
  CHECK(s.tasks[1].doctor_exit == 1);
  CHECK(s.tasks[2].stderr_lines == std::vector<std::string>{"sh: 3: /opt/c/condacuda: not found"});
  CHECK(s.srun_messages.size() == 1);
  NodeRecord r = record_from_task(s.tasks[2], 300, "/opt/c/condacuda");
  REQUIRE(r.no_answer);
  CHECK(r.node == "node3");
  CHECK(r.no_answer->kind == Silence::not_started);
  CHECK(r.no_answer->reason == "/opt/c/condacuda could not be started there: sh: 3: /opt/c/condacuda: not found");
  CHECK(record_from_task(s.tasks[1], 300, "c").no_answer->kind == Silence::bad_document); // JSON, not a condacuda document
}

TEST_CASE("record_from_task: timed out, cut short, and a check document after doctor's") {
  TaskOutput t;
  t.node = "gpu1";
  t.doctor_exit = 124;
  CHECK(record_from_task(t, 60, "c").no_answer->reason == "condacuda did not finish within 60 s");
  t.doctor_exit.reset();
  CHECK(record_from_task(t, 60, "c").no_answer->kind == Silence::timed_out);
  Doc d;
  d.node = "gpu1";
  t.doctor_text = doctor_document(d).dump(2);
  t.doctor_exit = 0;
  Json check = Json::object();
  check.set("schema", "condacuda.check/1");
  check.set("outcome", "no-gpu");
  check.set("exit_code", 3);
  check.set("reason", "no usable GPU");
  t.check_text = check.dump(2);
  t.check_exit = 3;
  NodeRecord r = record_from_task(t, 60, "c");
  REQUIRE_FALSE(r.no_answer);
  CHECK(r.verdict.check_outcome == "no-gpu");
  CHECK(r.exit_code() == 3);
}

TEST_CASE("launch_failures: the nodes srun could not launch on") {
  auto f = launch_failures({"srun: error: Task launch for StepId=12.0 failed on node node3: Communication connection failure",
                            "srun: error: Application launch failed: Communication connection failure"});
  REQUIRE(f.size() == 1);
  CHECK(f.count("node3"));
}

TEST_CASE("sinfo: nodes, partitions, the default, states and reasons") {
  auto nodes = parse_sinfo_nodes("node1|debug*|idle|none\nnode2|debug*|drained|disk replaced | twice\nnode3|gpu|down*|Not responding\n");
  REQUIRE(nodes);
  REQUIRE(nodes->size() == 3);
  CHECK((*nodes)[0].default_partition);
  CHECK((*nodes)[0].partition == "debug");
  CHECK((*nodes)[1].reason == "disk replaced | twice");
  CHECK(unavailable_reason((*nodes)[1]) == "drained: disk replaced | twice");
  CHECK(unavailable_reason((*nodes)[2]) == "down (not responding): Not responding");
  CHECK_FALSE(parse_sinfo_nodes("garbage\n"));
  CHECK(takes_a_job_now("idle"));
  CHECK(takes_a_job_now("mixed"));
  CHECK_FALSE(takes_a_job_now("idle*"));
  CHECK_FALSE(takes_a_job_now("idle~"));
  CHECK_FALSE(takes_a_job_now("allocated"));
  CHECK_FALSE(takes_a_job_now("drained"));
  CHECK_FALSE(takes_a_job_now("draining"));
  CHECK_FALSE(takes_a_job_now("mixed$"));
}

TEST_CASE("classify: the same failure in many files is one class; the file and the parse position are each node's detail") {
  Doc d;
  std::string truncated = doctor_document(d).dump(2);
  std::vector<NodeRecord> nodes;
  for (const char* n : {"t01", "t02"}) {
    auto r = records_from_text(truncated.substr(0, 100 + std::string(n).back()), std::string("out/") + n + ".json");
    nodes.push_back(r.at(0));
  }
  for (const char* n : {"e01", "e02"}) nodes.push_back(records_from_text("", std::string("out/") + n + ".json").at(0));
  Doc h = d, k = d;
  h.driver = k.driver = "";
  h.node = "h1";
  k.node = "h2";
  h.exit_code = k.exit_code = 1;
  h.findings = k.findings = {{"driver-too-old", "error"}};
  auto old1 = record(h), old2 = record(k);
  old1.verdict.findings[0].title = "NVIDIA driver 470.57.02 is older than CUDA 13.x needs";
  old2.verdict.findings[0].title = "NVIDIA driver 470.82.01 is older than CUDA 13.x needs";
  nodes.push_back(old1);
  nodes.push_back(old2);
  Fleet f = classify(nodes);
  REQUIRE(f.classes.size() == 3);
  CHECK(class_of(f, "t[01-02]"));
  CHECK(class_of(f, "e[01-02]"));
  CHECK(class_of(f, "h[1-2]"));
  CHECK(f.nodes.at(4).no_answer->detail.find("out/t01.json") == 0); // nodes by name: e01 e02 h1 h2 t01 t02
  CHECK(f.nodes.at(0).no_answer->detail == "out/e01.json");
}

TEST_CASE("classify: a node named with brackets, commas or blanks is shown as it is, never read as a hostlist") {
  Doc a, b, c;
  a.node = "gpu[001-512]";
  b.node = "n1";
  c.node = "a,b";
  Fleet f = classify({record(a), record(b), record(c)});
  REQUIRE(f.classes.size() == 1);
  CHECK(f.classes[0].hostlist == "n1,a,b,gpu[001-512]");
  CHECK(f.nodes.size() == 3);
}

TEST_CASE("record: an exit code condacuda does not give makes a bad document (256 would exit 0)") {
  Json d = doctor_document({});
  d.set("exit_code", 256);
  NodeRecord r = record_from_documents("x", d, Json());
  REQUIRE(r.no_answer);
  CHECK(r.no_answer->kind == Silence::bad_document);
  CHECK(r.exit_code() == exit_no_answer);
  d.set("exit_code", 1e300);
  CHECK(record_from_documents("x", d, Json()).no_answer);
  CHECK(worse_exit_code(101, 100) == 101); // unknown codes: ordered, so classes sort
  CHECK(worse_exit_code(100, 101) == 101);
}

TEST_CASE("documents from two envs never share a class") {
  Json a = doctor_document({}), b = doctor_document({});
  Json env = Json::object();
  env.set("prefix", "/envs/a");
  a.set("env", env);
  env.set("prefix", "/envs/b");
  b.set("env", env);
  Json nb = *b.get("node");
  nb.set("name", "node2");
  b.set("node", nb);
  Fleet f = classify({record_from_documents("", a, Json()), record_from_documents("", b, Json())});
  CHECK(f.classes.size() == 2);
}

TEST_CASE("srun output: base64 documents (srun breaks long lines), a TaskProlog's print before the script, a check that timed out") {
  Doc d;
  d.node = "node1";
  d.llp = std::string(3000, 'x'); // a line longer than one slurmstepd message
  const std::string doc = doctor_document(d).dump(2) + "\n";
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string b64;
  for (std::size_t i = 0; i < doc.size(); i += 3) {
    std::uint32_t n = std::uint32_t(static_cast<unsigned char>(doc[i])) << 16;
    if (i + 1 < doc.size()) n |= std::uint32_t(static_cast<unsigned char>(doc[i + 1])) << 8;
    if (i + 2 < doc.size()) n |= static_cast<unsigned char>(doc[i + 2]);
    b64 += table[(n >> 18) & 63];
    b64 += table[(n >> 12) & 63];
    b64 += i + 1 < doc.size() ? table[(n >> 6) & 63] : '=';
    b64 += i + 2 < doc.size() ? table[n & 63] : '=';
  }
  std::string out = "0: prolog says hello\n0: condacuda-fleet node node1\n0: condacuda-fleet encoding base64\n";
  for (std::size_t i = 0; i < b64.size(); i += 76) out += "0: " + b64.substr(i, 76) + "\n";
  out += "0: condacuda-fleet doctor-exit 0\n0: condacuda-fleet check-exit 124\n";
  SrunOutput s = split_srun_output(out, "");
  REQUIRE(s.tasks.size() == 1);
  CHECK(s.tasks[0].base64);
  NodeRecord r = record_from_task(s.tasks[0], 60, "c");
  REQUIRE_FALSE(r.no_answer);
  CHECK(r.facts.ld_library_path == std::string(3000, 'x'));
  CHECK(r.verdict.check_outcome == "timed-out"); // doctor's verdict kept
  CHECK(r.verdict.check_reason == "check did not finish within 60 s");
  CHECK(r.exit_code() == exit_no_answer);

  TaskOutput bad = s.tasks[0];
  bad.doctor_text = "not*base64\n";
  bad.check_exit.reset();
  CHECK(record_from_task(bad, 60, "c").no_answer->reason == "doctor exited 0, not base64");
}

TEST_CASE("classify: the repair in a class's own launch is its next step only when its nodes share one LD_LIBRARY_PATH") {
  // A repair verifies the launch it runs in: a class of one LD_LIBRARY_PATH
  // is told to repair from it; a class whose nodes launch with two is not
  // told to repair from either (the other would stay unverified).
  auto node = [](const std::string& name, const std::string& llp) {
    Doc d;
    d.node = name;
    d.llp = llp;
    d.exit_code = 1;
    d.findings = {{"undefined-symbol", "error"}};
    d.fix = "run `condacuda repair -p '/envs/shared'` so the env's copies are found first";
    d.prefix = "/envs/shared";
    return record(d);
  };
  Fleet one = classify({node("a1", "/opt/m1/lib"), node("a2", "/opt/m1/lib")});
  REQUIRE(one.classes.size() == 1);
  CHECK(one.classes[0].next.rfind("LD_LIBRARY_PATH='/opt/m1/lib' condacuda repair -p '/envs/shared'", 0) == 0);
  Fleet two = classify({node("a1", "/opt/m1/lib"), node("a2", "/opt/m2/lib")});
  REQUIRE(two.classes.size() == 1);
  CHECK(two.classes[0].next.find("LD_LIBRARY_PATH=") == std::string::npos);
  CHECK(two.classes[0].next == "run `condacuda repair -p '/envs/shared'` so the env's copies are found first");
}
