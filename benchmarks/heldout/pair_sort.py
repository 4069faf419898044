# dynamo: target=order_pairs inputs=f32[3,4]
import torch


@torch.compile
def order_pairs(x):
    scores = [row.sum() for row in x]
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    return x[order[0]]
