import torch

from shop.losses import contrastive
from shop.models.net import Net

loss_fn = torch.compile(contrastive)


def main():
    model = torch.compile(Net())
    x = torch.randn(4, 8)
    out = model(x)
    print(loss_fn(out, x))


if __name__ == "__main__":
    main()
