// A C++ libtorch program that knows nothing of cann-profiler: a few steps of a small MLP's
// forward and backward pass. Its aten operators must show up in the trace with their shapes.
#include <torch/torch.h>

int main(int argc, char** argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 5;
  torch::manual_seed(0);
  torch::nn::Linear fc1(64, 128), fc2(128, 10);
  torch::optim::SGD opt(std::vector<torch::Tensor>{fc1->weight, fc1->bias, fc2->weight, fc2->bias}, 0.01);
  for (int s = 0; s < steps; ++s) {
    torch::Tensor x = torch::randn({32, 64});
    torch::Tensor y = torch::randint(0, 10, {32});
    torch::Tensor out = fc2(torch::relu(fc1(x)));
    torch::Tensor loss = torch::nn::functional::cross_entropy(out, y);
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  return 0;
}
