#pragma once
// FakeHttpServer: a scripted HTTP/1.1 server on 127.0.0.1 for BeastClient unit tests. Each
// request (head + Content-Length body) is passed to the handler, which returns the raw bytes to
// send back, optionally in several parts with pauses, and whether to close or hang afterwards.

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace berth::client::testing {

struct Reply {
  std::vector<std::string> parts;  // written in order, `gap` apart
  std::chrono::milliseconds gap{0};
  bool close = false;  // close the connection after the reply (without saying so)
  bool hang = false;   // keep the connection open, sending nothing more, until the client leaves
};

// "HTTP/1.1 <status> X\r\nContent-Length: ..\r\n<extra>\r\n<body>".
inline std::string RawResponse(int status, const std::string& body, const std::string& extra = "") {
  return "HTTP/1.1 " + std::to_string(status) +
         " X\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + extra + "\r\n" + body;
}

inline std::string Chunk(const std::string& data) {
  char size[32];
  snprintf(size, sizeof(size), "%zx\r\n", data.size());
  return size + data + "\r\n";
}

class FakeHttpServer {
 public:
  using Handler = std::function<Reply(const std::string& request, int index)>;

  explicit FakeHttpServer(Handler handler) : handler_(std::move(handler)) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    listen(listen_fd_, 16);
    socklen_t len = sizeof(addr);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    accept_thread_ = std::thread([this] { AcceptLoop(); });
  }

  ~FakeHttpServer() {
    stopping_ = true;
    accept_thread_.join();
    close(listen_fd_);
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& t : conn_threads_) t.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int connections() const { return connections_.load(); }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  // Waits until fd is readable or the server stops; false when stopping.
  bool WaitReadable(int fd) {
    while (!stopping_) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 50) > 0) return true;
    }
    return false;
  }

  void AcceptLoop() {
    while (WaitReadable(listen_fd_)) {
      int fd = accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      connections_.fetch_add(1);
      std::lock_guard<std::mutex> lock(mu_);
      conn_threads_.emplace_back([this, fd] { Serve(fd); });
    }
  }

  void Serve(int fd) {
    std::string in;
    char buf[4096];
    for (;;) {
      size_t head_end;
      while ((head_end = in.find("\r\n\r\n")) == std::string::npos) {
        if (!WaitReadable(fd)) return Done(fd);
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n <= 0) return Done(fd);
        in.append(buf, n);
      }
      size_t length = 0;
      std::string head = in.substr(0, head_end);
      std::string lower = head;
      for (auto& c : lower) c = static_cast<char>(tolower(c));
      if (auto p = lower.find("content-length:"); p != std::string::npos) {
        length = std::stoul(head.substr(p + 15));
      }
      while (in.size() < head_end + 4 + length) {
        if (!WaitReadable(fd)) return Done(fd);
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n <= 0) return Done(fd);
        in.append(buf, n);
      }
      std::string request = in.substr(0, head_end + 4 + length);
      in.erase(0, request.size());
      int index;
      {
        std::lock_guard<std::mutex> lock(mu_);
        index = static_cast<int>(requests_.size());
        requests_.push_back(request);
      }
      Reply reply = handler_(request, index);
      for (size_t i = 0; i < reply.parts.size(); ++i) {
        if (i > 0) std::this_thread::sleep_for(reply.gap);
        send(fd, reply.parts[i].data(), reply.parts[i].size(), MSG_NOSIGNAL);
      }
      if (reply.hang) {
        // Until the client closes (recv 0) or the server stops.
        while (WaitReadable(fd)) {
          if (recv(fd, buf, sizeof(buf), 0) <= 0) break;
        }
        return Done(fd);
      }
      if (reply.close) return Done(fd);
    }
  }

  void Done(int fd) { close(fd); }

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  std::thread accept_thread_;
  std::mutex mu_;  // guards conn_threads_, requests_
  std::vector<std::thread> conn_threads_;
  std::vector<std::string> requests_;
};

}  // namespace berth::client::testing
